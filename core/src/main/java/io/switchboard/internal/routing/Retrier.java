package io.switchboard.internal.routing;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** Runs a retry off the caller's thread, one at a time and at most every 5 s after the last attempt. */
final class Retrier {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long lastAttempt;

    /** Notes an attempt made now (the interval counts from it). */
    void attempted() {
        lastAttempt = System.nanoTime();
    }

    /** Runs {@code attempt} on the common pool when the interval has passed and no attempt is running. */
    void maybeRun(Runnable attempt) {
        if (System.nanoTime() - lastAttempt < INTERVAL_NANOS || !running.compareAndSet(false, true)) {
            return;
        }
        attempted();
        ForkJoinPool.commonPool().execute(() -> {
            try {
                attempt.run();
            } finally {
                running.set(false);
            }
        });
    }
}
