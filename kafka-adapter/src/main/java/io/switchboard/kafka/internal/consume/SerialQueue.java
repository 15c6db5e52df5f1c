package io.switchboard.kafka.internal.consume;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One unit of a shared subscription's concurrency: the poll thread appends records (each partition's always to the
 * same queue, in offset order) and submits the queue to the {@link DeliveryPool} only when it was idle; one pool
 * thread at a time drains it into the subscription's listener, which runs the handler. One hand-off per burst, not
 * per record.
 */
final class SerialQueue implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(SerialQueue.class);

    private final ConcurrentLinkedQueue<KafkaInboundRecord> records = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Attachment owner;
    private final DeliveryPool pool;

    SerialQueue(Attachment owner, DeliveryPool pool) {
        this.owner = owner;
        this.pool = pool;
    }

    /** Poll thread: queues a record, waking a pool thread when none drains the queue. */
    void offer(KafkaInboundRecord record) {
        records.add(record);
        if (scheduled.compareAndSet(false, true)) {
            pool.execute(this);
        }
    }

    @Override
    public void run() {
        while (true) {
            KafkaInboundRecord record = records.poll();
            if (record == null) {
                scheduled.set(false);
                if (records.isEmpty() || !scheduled.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            if (owner.closed()) {
                continue; // its partitions were given up: the record is delivered again wherever they went
            }
            handOver(owner, record);
        }
    }

    /**
     * Poll thread: whether no record waits here and no pool thread drains the queue (a pool thread clears
     * {@code scheduled} only after its last record's handler returned; only the poll thread adds records).
     */
    boolean idle() {
        return !scheduled.get() && records.isEmpty();
    }

    /** Runs the subscription's listener on one record; a failure returns the record to the broker. */
    static void handOver(Attachment owner, KafkaInboundRecord record) {
        try {
            owner.listener.onRecord(record);
        } catch (RuntimeException e) {
            log.error("Handing a record of '{}' over failed; it is returned to the broker", owner.topic(), e);
            record.nack();
        }
    }
}
