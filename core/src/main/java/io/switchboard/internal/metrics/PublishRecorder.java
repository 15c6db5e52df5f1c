package io.switchboard.internal.metrics;

/**
 * Where a publisher reports each publish outcome: the Micrometer meters, the routing layer's
 * windowed statistics, or both. Implementations neither allocate nor lock per call.
 */
public interface PublishRecorder {

    /** One publish that started at {@code startNanos} and ended at {@code endNanos} ({@link System#nanoTime()}). */
    void published(long startNanos, long endNanos, int payloadBytes, boolean ok);

    /** One publish that started at {@code startNanos} ({@link System#nanoTime()}) and has just ended. */
    default void published(long startNanos, int payloadBytes, boolean ok) {
        published(startNanos, System.nanoTime(), payloadBytes, ok);
    }

    /** {@return false when this recorder only counts: the publisher then reads no clock at a publish's end for it} */
    default boolean timed() {
        return true;
    }

    /** Both recorders, or the one that is not null, or null when both are. */
    static PublishRecorder both(PublishRecorder a, PublishRecorder b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        boolean timed = a.timed() || b.timed();
        return new PublishRecorder() {
            @Override
            public void published(long start, long end, int bytes, boolean ok) {
                a.published(start, end, bytes, ok);
                b.published(start, end, bytes, ok);
            }

            @Override
            public boolean timed() {
                return timed;
            }
        };
    }
}
