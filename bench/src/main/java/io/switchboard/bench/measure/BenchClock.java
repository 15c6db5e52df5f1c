package io.switchboard.bench.measure;

import java.time.Instant;

/**
 * Wall-clock time in microseconds since the epoch, read from {@link System#nanoTime()} anchored
 * once to the system clock: monotonic and precise within the JVM, so a timestamp written by a
 * producer and read by a consumer in the same process measures latency to the microsecond.
 */
public final class BenchClock {

    private static final long BASE_NANOS = System.nanoTime();
    private static final long BASE_EPOCH_MICROS;

    static {
        Instant now = Instant.now();
        BASE_EPOCH_MICROS = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private BenchClock() {}

    /** Now, in microseconds since the epoch. */
    public static long nowMicros() {
        return toMicros(System.nanoTime());
    }

    /** A {@link System#nanoTime()} reading as microseconds since the epoch. */
    public static long toMicros(long nanoTime) {
        return BASE_EPOCH_MICROS + (nanoTime - BASE_NANOS) / 1_000;
    }

    /** Microseconds since the epoch as an {@link Instant} (for the SDK's message timestamp). */
    public static Instant toInstant(long epochMicros) {
        return Instant.ofEpochSecond(Math.floorDiv(epochMicros, 1_000_000L), Math.floorMod(epochMicros, 1_000_000L) * 1_000L);
    }

    /** An {@link Instant} as microseconds since the epoch. */
    public static long toMicros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }
}
