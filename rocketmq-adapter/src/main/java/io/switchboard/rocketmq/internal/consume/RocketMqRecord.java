package io.switchboard.rocketmq.internal.consume;

import io.switchboard.rocketmq.internal.mapping.MessageMapping;
import io.switchboard.spi.AbstractInboundRecord;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A RocketMQ message handed to core. Ack and nack only flip a state and count down the
 * {@link Batch} it belongs to; the consume thread waiting on that batch does any broker work.
 */
final class RocketMqRecord extends AbstractInboundRecord {

    static final int ACKED = 1;
    static final int RETURNED = 2;

    private final MessageExt message;
    private final Batch batch;

    /**
     * @param queueOrdered true when the records of the message's queue reach core in offset order
     *     (orderly listener); otherwise the record reports no partition, so that core does not
     *     serialize a queue's records that arrive out of order anyway
     */
    RocketMqRecord(MessageExt message, String destination, boolean queueOrdered, Batch batch) {
        super(destination, queueOrdered ? message.getQueueId() : -1, message.getQueueOffset(), message.getKeys(),
                MessageMapping.receivedHeaders(message), message.getBody(), message.getReconsumeTimes() + 1, message.getMsgId(),
                message.getStoreTimestamp(), PENDING);
        this.message = message;
        this.batch = batch;
    }

    MessageExt message() {
        return message;
    }

    /** Takes back a record core has not settled (closing); a later ack or nack is ignored. */
    boolean takeBack() {
        return settle(PENDING, RETURNED);
    }

    @Override
    public void ack() {
        if (settle(PENDING, ACKED)) {
            batch.settled();
        }
    }

    @Override
    public void nack() {
        if (settle(PENDING, RETURNED)) {
            batch.settled();
        }
    }
}
