package io.switchboard.internal.metrics;

import java.time.Instant;

/**
 * Wall-clock time from a {@link System#nanoTime()} reading the caller already has: the end-to-end latency of a
 * consumed record then costs no clock read of its own ({@link Instant#now()} costs 29 ns here, bench/README.md). The
 * offset between the two clocks is read again once a second, so a clock step or slew shows within a second (NTP's
 * slew, at most 500 ppm, moves it by at most 0.5 ms in that second).
 */
public final class WallClock {

    private static final long REFRESH_NANOS = 1_000_000_000L;

    /** A {@code nanoTime} reading and the wall clock's epoch microseconds at that moment. */
    private record Base(long nanos, long micros) {}

    private static volatile Base base = read();

    private WallClock() {}

    /** {@return epoch microseconds at the moment {@code System.nanoTime()} read {@code nanos}} */
    public static long micros(long nanos) {
        Base b = base;
        if (nanos - b.nanos >= REFRESH_NANOS) {
            b = read();
            base = b;
        }
        return b.micros + (nanos - b.nanos) / 1000;
    }

    private static Base read() {
        long nanos = System.nanoTime();
        Instant now = Instant.now();
        return new Base(nanos, now.getEpochSecond() * 1_000_000L + now.getNano() / 1000);
    }
}
