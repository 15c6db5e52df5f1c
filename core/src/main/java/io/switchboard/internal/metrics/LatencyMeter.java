package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** Where one latency is recorded: a {@link LeanTimer} (the default) or a Micrometer {@link Timer}. */
public interface LatencyMeter {

    /** Records one latency, in nanoseconds. */
    void record(long nanos);

    /** A Micrometer timer as a latency meter. */
    static LatencyMeter of(Timer timer) {
        return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
    }
}
