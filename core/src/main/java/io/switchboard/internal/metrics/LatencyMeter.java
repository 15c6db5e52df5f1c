package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** Where one latency is recorded: a {@link LeanTimer} (the default), a Micrometer {@link Timer} or a {@link CountingMeter}. */
public interface LatencyMeter {

    /** Records one latency, in nanoseconds. */
    void record(long nanos);

    /** Records the latency from {@code startNanos} ({@link System#nanoTime()}) to now. */
    default void recordSince(long startNanos) {
        record(System.nanoTime() - startNanos);
    }

    /** {@return false for a meter that only counts: its owner need not read the clock for it} */
    default boolean timed() {
        return true;
    }

    /** A Micrometer timer as a latency meter. */
    static LatencyMeter of(Timer timer) {
        return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
    }
}
