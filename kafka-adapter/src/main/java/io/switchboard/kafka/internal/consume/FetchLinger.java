package io.switchboard.kafka.internal.consume;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A busy group consumer lets records gather on the broker before its next fetch ({@code kafka.fetch-linger}): after a
 * poll that brought at least {@code kafka.fetch-linger-records} records (and fewer than {@code max.poll.records},
 * which means more are buffered already), the next poll starts no sooner than the linger after that one returned.
 *
 * <p>Why: kafka-clients sends a partition's next fetch as soon as {@code poll} hands out its records, and the broker
 * answers a fetch with what it has ({@code fetch.min.bytes} 1). A poll loop that hands records over faster than the
 * application handles them therefore fetches more often for the same records, and each fetch costs the broker CPU;
 * on a machine the broker shares, that CPU is the rate. Lingering at full speed gets larger fetches without what
 * {@code fetch.min.bytes} would cost at low rates: a poll that brought few records is followed at once, so a lone
 * record is never held. The wait is on the poll thread only; an attach, detach, nack or close wakes it at once.
 * Poll thread only.
 */
final class FetchLinger {

    private final long lingerNanos;
    private final int busyRecords;
    private final int maxPollRecords;
    private boolean pending;
    private long until;

    /**
     * @param linger how long after a busy poll the next one waits at most; zero turns lingering off
     * @param busyRecords how many records make a poll busy
     * @param maxPollRecords the client's {@code max.poll.records}: a poll that brought that many left more buffered
     */
    FetchLinger(Duration linger, int busyRecords, int maxPollRecords) {
        this.lingerNanos = linger.toNanos();
        this.busyRecords = busyRecords;
        this.maxPollRecords = maxPollRecords;
    }

    /** A poll brought {@code records} records and returned at {@code nanoTime}. */
    void polled(int records, long nanoTime) {
        pending = lingerNanos > 0 && records >= busyRecords && records < maxPollRecords;
        until = nanoTime + lingerNanos;
    }

    /** {@return how long the next poll should still wait at {@code nanoTime}, 0 for not at all} */
    long remaining(long nanoTime) {
        return pending ? Math.max(0, until - nanoTime) : 0;
    }

    /** Before a poll that waits for records: parks out the rest of the linger (a wakeup of the thread ends it early). */
    void await() {
        long left = remaining(System.nanoTime());
        pending = false;
        if (left > 0) {
            LockSupport.parkNanos(this, left);
        }
    }
}
