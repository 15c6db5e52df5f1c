package io.switchboard.internal.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * When a subscription's last record arrived, without a clock read or a fence per record: the delivery threads
 * count arrivals with opaque writes (racy: the count only has to change), and the rare reader (the routing
 * ticker's drain check) turns a change it sees into the time it saw it.
 */
public final class Arrivals {

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(Arrivals.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through COUNT
    private long count;
    private long seen;
    private long seenAtNanos = System.nanoTime();

    /** A record arrived: called per record, by any delivery thread. */
    public void arrived() {
        COUNT.setOpaque(this, (long) COUNT.getOpaque(this) + 1);
    }

    /** {@link System#nanoTime()} of the first call that saw the last arrival (or when this was made). */
    public synchronized long lastNanos() {
        long n = (long) COUNT.getOpaque(this);
        if (n != seen) {
            seen = n;
            seenAtNanos = System.nanoTime();
        }
        return seenAtNanos;
    }
}
