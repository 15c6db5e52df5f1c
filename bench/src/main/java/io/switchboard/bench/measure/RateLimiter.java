package io.switchboard.bench.measure;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * An open-loop schedule of send times: the {@code n}-th message is due at
 * {@code start + n / rate}, whatever happened to earlier messages. A sender that falls behind
 * (a slow send, a GC pause) does not push the schedule back; it sends late, and the latency of
 * every late message is measured from its <em>intended</em> time, so coordinated omission cannot
 * hide the stall. How late each send was is reported separately as the publish delay.
 *
 * <p>Waiting parks the thread rather than spinning, so the brokers sharing the cores keep them.
 * Not thread-safe: one limiter per sender thread.
 */
public final class RateLimiter {

    private final double intervalNanos;
    private final long startNanos;
    private final LongSupplier clock;
    private long sequence;

    /**
     * A schedule starting at {@code startNanos} (a {@link System#nanoTime()} reading).
     *
     * @param ratePerSecond messages per second, above 0
     */
    public RateLimiter(double ratePerSecond, long startNanos) {
        this(ratePerSecond, startNanos, System::nanoTime);
    }

    /** A schedule on another clock (for tests). */
    public RateLimiter(double ratePerSecond, long startNanos, LongSupplier clock) {
        if (!(ratePerSecond > 0)) {
            throw new IllegalArgumentException("rate must be above 0 messages per second but was " + ratePerSecond);
        }
        this.intervalNanos = 1_000_000_000d / ratePerSecond;
        this.startNanos = startNanos;
        this.clock = clock;
    }

    /** The intended time of the next message, advancing the schedule; does not wait. */
    public long next() {
        return startNanos + (long) (sequence++ * intervalNanos);
    }

    /** Waits until the next message is due and returns its intended time (it may be in the past). */
    public long awaitNext() {
        long intended = next();
        long wait;
        while ((wait = intended - clock.getAsLong()) > 0) {
            LockSupport.parkNanos(wait);
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
        }
        return intended;
    }

    /** Messages scheduled so far. */
    public long scheduled() {
        return sequence;
    }
}
