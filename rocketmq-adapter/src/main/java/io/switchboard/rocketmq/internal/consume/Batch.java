package io.switchboard.rocketmq.internal.consume;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The records of one call of RocketMQ's listener. The consume thread waits until core has
 * settled every record handed out, or until the consumer closes; each settlement also frees one
 * place of the consumer's in-flight bound.
 */
final class Batch {

    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final AtomicInteger unsettled = new AtomicInteger();
    private final Semaphore inFlight;
    private final boolean awaited;
    private final Thread consumeThread;

    /**
     * @param inFlight the consumer's in-flight bound, released once per settled record
     * @param awaited false for at-most-once, where nothing waits for the settlements
     */
    Batch(Semaphore inFlight, boolean awaited) {
        this.inFlight = inFlight;
        this.awaited = awaited;
        this.consumeThread = Thread.currentThread();
    }

    /** Counts a record about to be handed to core. */
    void handing() {
        unsettled.incrementAndGet();
    }

    /**
     * Counts a record settled. Wakes the consume thread when it was the last, unless this is the consume thread (core
     * handling the record inline): that thread checks the count before it parks, and waking a running thread costs a
     * call into the JVM per record.
     */
    void settled() {
        inFlight.release();
        if (unsettled.decrementAndGet() == 0 && awaited && Thread.currentThread() != consumeThread) {
            LockSupport.unpark(consumeThread);
        }
    }

    /** Waits until every handed record is settled; false when {@code closing} became true first. */
    boolean awaitSettled(BooleanSupplier closing) {
        while (unsettled.get() > 0) {
            if (closing.getAsBoolean()) {
                return false;
            }
            LockSupport.parkNanos(this, RECHECK_NANOS);
        }
        return true;
    }
}
