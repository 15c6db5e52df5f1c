package io.switchboard.spi;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The settlement state every adapter's {@link InboundRecord} keeps: core's first {@link #ack()} or {@link #nack()}
 * moves it on with one compare-and-set, without a lock or an object per record. An adapter whose broker record already
 * holds the attributes extends this and reads them from that record, so a received message costs one small object;
 * {@link AbstractInboundRecord} adds fields for adapters that copy them.
 */
public abstract class SettledOnce implements InboundRecord {

    /** The settlement state of a record core has not settled yet. */
    public static final int PENDING = 0;

    private static final AtomicIntegerFieldUpdater<SettledOnce> STATE =
            AtomicIntegerFieldUpdater.newUpdater(SettledOnce.class, "state");

    private volatile int state;

    /**
     * Starts in {@code initialState}.
     *
     * @param initialState {@link #PENDING}, or an adapter's own state for a record settled before it reaches core
     */
    protected SettledOnce(int initialState) {
        this.state = initialState;
    }

    /**
     * Moves the settlement state from {@code from} to {@code to}, atomically, when it is {@code from}.
     *
     * @param from the state expected
     * @param to the new state
     * @return true when this call moved the state; false when the state was not {@code from}
     */
    protected final boolean settle(int from, int to) {
        return STATE.compareAndSet(this, from, to);
    }

    /** {@return the settlement state: {@link #PENDING}, or the state the adapter last moved it to} */
    public final int state() {
        return state;
    }
}
