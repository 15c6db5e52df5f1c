package io.switchboard.bench.run;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One sender thread's window of unacknowledged sends. When the window is full the sender waits until a quarter of it
 * is free again (all of it for a window of one), and the thread acknowledging sends wakes it once, at that point.
 *
 * <p>A {@link java.util.concurrent.Semaphore}, used before it, woke the waiting sender at every
 * acknowledgement: at full speed on two cores that was 18,000-36,000 wake-ups a second, each taking a core from the
 * client's I/O thread in the middle of its batch of callbacks, so one permit was freed, the sender sent one message and
 * waited again. The figure then measured that ping-pong as much as the client, and a driver whose callbacks take a
 * little longer paid for it several times over (seed 001 at 16 topics, bench/README.md). Every driver gets the same
 * window; only the wake-ups change.
 *
 * <p>Only the owning sender calls {@link #acquire}; any thread may call {@link #release}.
 */
final class SendWindow {

    private final int size;
    private final int resumeAt;
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile Thread waiter;

    SendWindow(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("window of " + size + " sends; it must be 1 or more");
        }
        this.size = size;
        this.resumeAt = size - Math.max(1, size / 4);
    }

    /** Takes a place for one send, waiting up to {@code timeoutMillis} for room; false when none came in time. */
    boolean acquire(long timeoutMillis) throws InterruptedException {
        if (outstanding.get() < size) { // only this thread adds, so the window cannot overfill in between
            outstanding.incrementAndGet();
            return true;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        waiter = Thread.currentThread(); // written before the count is read; release writes the count, then reads this
        try {
            while (outstanding.get() > resumeAt) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException("waiting for room in a window of " + size + " sends");
                }
            }
        } finally {
            waiter = null;
        }
        outstanding.incrementAndGet();
        return true;
    }

    /** Frees the place of one acknowledged (or failed) send. */
    void release() {
        // the count falls one at a time and does not rise while the sender waits, so it passes resumeAt exactly once
        if (outstanding.decrementAndGet() == resumeAt) {
            Thread sender = waiter;
            if (sender != null) {
                LockSupport.unpark(sender);
            }
        }
    }
}
