package io.switchboard.outbox;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idle relays' wait for new rows, shared by an outbox's relay threads: on PostgreSQL with the notify trigger, one
 * LISTEN connection for the outbox (not one a thread), read by whichever waiting relay holds it, which wakes the others;
 * opened again on its own after a failure and pinged while idle; UNLISTENed and handed back on {@link #close()}.
 * Elsewhere a plain bounded pause.
 */
final class RelayWakeup {

    private static final Logger log = LoggerFactory.getLogger(RelayWakeup.class);
    private static final long SLICE_MILLIS = 250;
    private static final long PING_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Outbox outbox;
    private final ReentrantLock reading = new ReentrantLock();
    private final Object signal = new Object();
    private volatile long generation;
    private PgWakeup listener; // guarded by reading
    private long lastUse;      // guarded by reading
    private long retryAt;      // guarded by reading
    private volatile boolean closed;
    private boolean warned;    // guarded by reading

    RelayWakeup(Outbox outbox) {
        this.outbox = outbox;
    }

    /** Waits up to {@code nanos} for new rows; true when a notification came. */
    boolean await(long nanos, BooleanSupplier stopping) {
        long deadline = System.nanoTime() + nanos;
        long seen = generation;
        while (!stopping.getAsBoolean()) {
            if (generation != seen) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            int slice = (int) Math.max(1, Math.min(SLICE_MILLIS, TimeUnit.NANOSECONDS.toMillis(left)));
            if (outbox.notifyTrigger && reading.tryLock()) {
                try {
                    PgWakeup l = listener();
                    if (l != null) {
                        if (closed) {
                            dropListener();
                            return false;
                        }
                        if (l.await(slice)) {
                            lastUse = System.nanoTime();
                            generation++;
                            synchronized (signal) {
                                signal.notifyAll();
                            }
                            return true;
                        }
                        if (System.nanoTime() - lastUse > PING_NANOS) {
                            l.ping();
                            lastUse = System.nanoTime();
                        }
                        continue;
                    }
                } catch (SQLException | RuntimeException e) {
                    log.info("Outbox '{}': the LISTEN connection failed ({}); it is opened again", outbox.table, e.getMessage());
                    dropListener();
                } finally {
                    reading.unlock();
                }
            }
            synchronized (signal) {
                if (generation == seen && !stopping.getAsBoolean()) {
                    try {
                        signal.wait(slice);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }
        }
        return false;
    }

    /** The listener, opened when there is none (not more often than every pollMax after a failure); null while none. */
    private PgWakeup listener() {
        if (listener != null || closed) {
            return listener;
        }
        long now = System.nanoTime();
        if (now - retryAt < 0) {
            return null;
        }
        try {
            listener = PgWakeup.listen(outbox.dataSource.getConnection(), Dialect.channel(outbox.table), outbox.table);
            lastUse = now;
            warned = false;
        } catch (SQLException | RuntimeException | LinkageError e) {
            retryAt = now + outbox.pollMax.toNanos();
            if (!warned) {
                warned = true;
                log.info("Outbox '{}': cannot LISTEN for new rows ({}); the relay polls every {} to {} until it can",
                        outbox.table, e.toString(), outbox.pollMin, outbox.pollMax);
            }
        }
        return listener;
    }

    private void dropListener() {
        if (listener != null) {
            listener.close();
            listener = null;
        }
    }

    /** Wakes every waiting relay (a stop). */
    void wakeAll() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** UNLISTENs and hands the connection back; waits for a relay reading it to finish its slice. */
    void close() {
        closed = true;
        wakeAll();
        boolean held = false;
        try {
            held = reading.tryLock(SLICE_MILLIS * 4, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!held) {
            log.warn("Outbox '{}': the LISTEN connection was still being read after {} ms; it is closed when that read ends",
                    outbox.table, SLICE_MILLIS * 4);
            return;
        }
        try {
            dropListener();
        } finally {
            reading.unlock();
        }
    }

    /** Allows a new listener after {@link #close()} (the outbox started again). */
    void reopen() {
        reading.lock();
        try {
            closed = false;
        } finally {
            reading.unlock();
        }
    }
}
