package io.switchboard.kafka.internal;

import io.switchboard.spi.InboundRecord;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A Kafka record handed to core. Acking only flips a flag that the poll thread reads when it
 * computes the offsets to commit; nacking also queues the record for the poll thread, which
 * rewinds the partition. The first ack or nack wins.
 */
final class KafkaInboundRecord implements InboundRecord {

    static final int PENDING = 0;
    static final int ACKED = 1;
    static final int NACKED = 2;
    /** Committed to Kafka before delivery (at-most-once): the first ack or nack only releases the in-flight slot. */
    static final int PRE_ACKED = 3;
    private static final AtomicIntegerFieldUpdater<KafkaInboundRecord> STATE =
            AtomicIntegerFieldUpdater.newUpdater(KafkaInboundRecord.class, "state");

    private final ConsumerRecord<byte[], byte[]> record;
    private final int deliveryCount;
    private final Settlement owner;
    private volatile int state;
    private Map<String, String> headers;
    /** Poll thread only: the record no longer counts for commits (its partition was rewound or revoked). */
    boolean stale;

    KafkaInboundRecord(ConsumerRecord<byte[], byte[]> record, int deliveryCount, Settlement owner, boolean settled) {
        this.record = record;
        this.deliveryCount = deliveryCount;
        this.owner = owner;
        this.state = settled ? PRE_ACKED : PENDING;
    }

    int state() {
        return state;
    }

    @Override
    public String destination() {
        return record.topic();
    }

    @Override
    public int partition() {
        return record.partition();
    }

    @Override
    public long offset() {
        return record.offset();
    }

    @Override
    public String key() {
        return KafkaRecords.key(record.key());
    }

    @Override
    public Map<String, String> headers() {
        Map<String, String> result = headers;
        if (result == null) {
            result = KafkaRecords.fromKafka(record.headers());
            headers = result;
        }
        return result;
    }

    @Override
    public byte[] payload() {
        byte[] value = record.value();
        return value == null ? new byte[0] : value;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public long brokerTimestamp() {
        return record.timestamp();
    }

    @Override
    public void ack() {
        if (STATE.compareAndSet(this, PENDING, ACKED) || STATE.compareAndSet(this, PRE_ACKED, ACKED)) {
            owner.settled(this, true);
        }
    }

    @Override
    public void nack() {
        if (STATE.compareAndSet(this, PENDING, NACKED)) {
            owner.settled(this, false);
        } else if (STATE.compareAndSet(this, PRE_ACKED, ACKED)) {
            owner.settled(this, true);
        }
    }

    @Override
    public String toString() {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    /** Told when core settles a record. */
    interface Settlement {
        /** Called once per record, from any thread; never blocks. */
        void settled(KafkaInboundRecord record, boolean ack);
    }
}
