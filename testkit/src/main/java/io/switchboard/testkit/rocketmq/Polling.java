package io.switchboard.testkit.rocketmq;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Waits for a condition on a running broker, keeping the last failure for the timeout message. */
final class Polling {

    /** A check that may fail while the broker is still getting ready. */
    @FunctionalInterface
    interface Check {
        boolean passes() throws Exception;
    }

    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private Polling() {}

    static void await(String what, Duration timeout, Check check) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception lastFailure = null;
        while (System.nanoTime() - deadline < 0) {
            try {
                if (check.passes()) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + what, e);
            } catch (Exception e) {
                lastFailure = e;
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting for " + what
                + (lastFailure == null ? "" : "; last error: " + lastFailure), lastFailure);
    }
}
