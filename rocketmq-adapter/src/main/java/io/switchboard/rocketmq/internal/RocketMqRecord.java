package io.switchboard.rocketmq.internal;

import io.switchboard.spi.InboundRecord;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A RocketMQ message handed to core. Ack and nack only flip a state and count down the
 * {@link Batch} it belongs to; the consume thread waiting on that batch does any broker work.
 */
final class RocketMqRecord implements InboundRecord {

    static final int PENDING = 0;
    static final int ACKED = 1;
    static final int RETURNED = 2;

    private static final AtomicIntegerFieldUpdater<RocketMqRecord> STATE =
            AtomicIntegerFieldUpdater.newUpdater(RocketMqRecord.class, "state");

    private final MessageExt message;
    private final String destination;
    private final Map<String, String> headers;
    private final boolean queueOrdered;
    private final Batch batch;
    private volatile int state;

    /**
     * @param queueOrdered true when the records of the message's queue reach core in offset order
     *     (orderly listener); otherwise the record reports no partition, so that core does not
     *     serialize a queue's records that arrive out of order anyway
     */
    RocketMqRecord(MessageExt message, String destination, boolean queueOrdered, Batch batch) {
        this.message = message;
        this.destination = destination;
        this.headers = MessageMapping.headers(message);
        this.queueOrdered = queueOrdered;
        this.batch = batch;
    }

    MessageExt message() {
        return message;
    }

    int state() {
        return state;
    }

    /** Takes back a record core has not settled (closing); a later ack or nack is ignored. */
    boolean takeBack() {
        return STATE.compareAndSet(this, PENDING, RETURNED);
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public int partition() {
        return queueOrdered ? message.getQueueId() : -1;
    }

    @Override
    public long offset() {
        return message.getQueueOffset();
    }

    @Override
    public String key() {
        return message.getKeys();
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public byte[] payload() {
        return message.getBody();
    }

    @Override
    public int deliveryCount() {
        return message.getReconsumeTimes() + 1;
    }

    @Override
    public String nativeId() {
        return message.getMsgId();
    }

    @Override
    public long brokerTimestamp() {
        return message.getStoreTimestamp();
    }

    @Override
    public void ack() {
        if (STATE.compareAndSet(this, PENDING, ACKED)) {
            batch.settled();
        }
    }

    @Override
    public void nack() {
        if (STATE.compareAndSet(this, PENDING, RETURNED)) {
            batch.settled();
        }
    }
}
