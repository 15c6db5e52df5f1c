package io.switchboard.internal.metrics;

/**
 * Where a publisher reports each publish outcome: the Micrometer meters, the routing layer's
 * windowed statistics, or both. Implementations neither allocate nor lock per call.
 */
public interface PublishRecorder {

    /** One publish that started at {@code startNanos} ({@link System#nanoTime()}) and has just ended. */
    void published(long startNanos, int payloadBytes, boolean ok);

    /** Both recorders, or the one that is not null, or null when both are. */
    static PublishRecorder both(PublishRecorder a, PublishRecorder b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return (start, bytes, ok) -> {
            a.published(start, bytes, ok);
            b.published(start, bytes, ok);
        };
    }
}
