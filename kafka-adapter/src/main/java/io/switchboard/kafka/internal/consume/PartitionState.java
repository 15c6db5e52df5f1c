package io.switchboard.kafka.internal.consume;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One assigned partition as the poll thread sees it: records fetched and not yet handed to core,
 * records handed to core in offset order, and the offset that may be committed, which is the
 * offset of the first record not yet acked. Used by the poll thread only.
 */
final class PartitionState {

    private final TopicPartition partition;
    /** The polls' record lists, not copied: the next record is {@link #next} in the first. */
    private final ArrayDeque<List<ConsumerRecord<byte[], byte[]>>> fetched = new ArrayDeque<>();
    private int next;
    private final ArrayDeque<KafkaInboundRecord> delivered = new ArrayDeque<>();
    /** Offsets that were nacked, with how often they have been delivered: rare, so a map. */
    private final Map<Long, Integer> deliveries = new HashMap<>();
    private long committed;
    private long committable;
    private boolean positioned;

    /**
     * @param position where the member starts reading the partition, or -1 while the client does not know yet (its
     *     leader has not answered the offset lookup): then {@link #position(long)} or the first records fetched set it
     */
    PartitionState(TopicPartition partition, long position) {
        this.partition = partition;
        this.committed = position;
        this.committable = position;
        this.positioned = position >= 0;
    }

    /** {@return whether the start position is known} Until it is, nothing is committed and nothing needs a rewind. */
    boolean positioned() {
        return positioned;
    }

    /** The client learned where the member starts reading the partition (no record of it was fetched yet). */
    void position(long position) {
        committed = position;
        committable = position;
        positioned = true;
    }

    TopicPartition partition() {
        return partition;
    }

    void fetched(List<ConsumerRecord<byte[], byte[]>> records) {
        if (!records.isEmpty()) {
            if (!positioned) {
                position(records.get(0).offset()); // nothing before it can be delivered any more
            }
            fetched.addLast(records);
        }
    }

    boolean hasFetched() {
        return !fetched.isEmpty();
    }

    ConsumerRecord<byte[], byte[]> nextFetched() {
        List<ConsumerRecord<byte[], byte[]>> head = fetched.peekFirst();
        ConsumerRecord<byte[], byte[]> record = head.get(next++);
        if (next == head.size()) {
            fetched.pollFirst();
            next = 0;
        }
        return record;
    }

    /** How many times the record at this offset has been delivered, counting the delivery about to happen. */
    int deliveryCount(long offset) {
        return deliveries.isEmpty() ? 1 : deliveries.getOrDefault(offset, 0) + 1;
    }

    /**
     * The record was handed to core: kept until it and every record before it are acked. One acked already (handled on
     * the poll thread) with nothing before it in flight moves the committable offset at once, without being kept.
     */
    void delivered(KafkaInboundRecord record) {
        if (delivered.isEmpty() && record.state() == KafkaInboundRecord.ACKED) {
            committable = Math.max(record.offset() + 1, record.skipThrough);
        } else {
            delivered.addLast(record);
        }
    }

    /**
     * The subscription's filter dropped the record at this offset: it counts as processed, so it is committed with
     * the records around it (at once when nothing is in flight, else once the last record delivered before it is acked).
     */
    void filtered(long offset) {
        KafkaInboundRecord last = delivered.peekLast();
        if (last == null) {
            committable = Math.max(committable, offset + 1);
        } else {
            last.skipThrough = offset + 1;
        }
    }

    /** At-most-once: the record was committed before delivery. */
    void committedBeforeDelivery(long nextOffset) {
        committable = nextOffset;
        committed = nextOffset;
    }

    /** Moves the committable offset past the acked records at the head. */
    void advance() {
        KafkaInboundRecord head;
        while ((head = delivered.peekFirst()) != null && head.state() == KafkaInboundRecord.ACKED) {
            committable = Math.max(head.offset() + 1, head.skipThrough);
            delivered.pollFirst();
        }
        if (!deliveries.isEmpty()) {
            deliveries.keySet().removeIf(offset -> offset < committable);
        }
    }

    /**
     * A record was nacked: forget what was fetched, and what was delivered from its offset on, so
     * that nothing from there is committed before it is delivered again.
     *
     * @return true when the partition must be rewound to the record's offset; false for a record
     *     that no longer counts
     */
    boolean rewind(KafkaInboundRecord nacked) {
        if (nacked.stale) {
            return false;
        }
        clearFetched();
        while (!delivered.isEmpty() && delivered.peekLast().offset() >= nacked.offset()) {
            delivered.pollLast().stale = true;
        }
        deliveries.put(nacked.offset(), nacked.deliveryCount());
        return true;
    }

    /** The partition went to another member: what is still in flight no longer counts here. */
    void revoke() {
        clearFetched();
        delivered.forEach(record -> record.stale = true);
        delivered.clear();
    }

    private void clearFetched() {
        fetched.clear();
        next = 0;
    }

    /** The offset of the first record not yet processed: where consuming starts again after {@link #revoke()}. */
    long committable() {
        return committable;
    }

    /** {@return whether records handed over are not all acked yet} */
    boolean inFlight() {
        return !delivered.isEmpty();
    }

    /** The offset to commit, or -1 when nothing new was acked since the last commit. */
    long commitNeeded() {
        return committable > committed ? committable : -1;
    }

    void commitSent(long offset) {
        committed = Math.max(committed, offset);
    }

    /** An asynchronous commit failed: the next commit sends the offset again. */
    void commitFailed() {
        committed = -1;
    }

    @Override
    public String toString() {
        int waiting = fetched.stream().mapToInt(List::size).sum() - next;
        return partition + "[committable " + committable + ", in flight " + delivered.size() + ", fetched " + waiting + "]";
    }
}
