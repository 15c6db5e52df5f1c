package io.switchboard.internal.metrics;

/**
 * Where a requester reports how each request ended: the Micrometer timers, the comparison's windowed statistics, or
 * both. Implementations neither allocate nor lock per call.
 */
public interface RequestRecorder {

    /** The reply came. */
    int SUCCESS = 0;
    /** No reply came within the request's time-out. */
    int TIMEOUT = 1;
    /** The request failed otherwise: its publish, the reply's decoding, a close or a cancel. */
    int FAILURE = 2;

    /** One request that ended with {@code outcome} {@code nanos} after it was made. */
    void requested(int outcome, long nanos);

    /** Both recorders, or the one that is not null, or null when both are. */
    static RequestRecorder both(RequestRecorder a, RequestRecorder b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return (outcome, nanos) -> {
            a.requested(outcome, nanos);
            b.requested(outcome, nanos);
        };
    }
}
