package io.switchboard.rabbit.internal.consume;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.Envelope;
import io.switchboard.rabbit.internal.mapping.AmqpHeaders;
import io.switchboard.spi.AbstractInboundRecord;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A delivery from a RabbitMQ queue. Ack and nack go to the channel it came on (amqp-client
 * serialises the frames); the first settles it, a second is ignored. After a connection loss the
 * broker has already requeued it, and amqp-client drops the stale delivery tag.
 *
 * <p>The key is the {@code cloudEvents_subject} header. A message from a plain AMQP publisher (no
 * subject and no {@code cloudEvents_id} or {@code cloudEvents_sb}) read from a queue that is not a partition queue has its
 * non-empty routing key as key instead, so that core handles each of the publisher's keys on one
 * lane and per-key order holds for it too.
 */
final class RabbitRecord extends AbstractInboundRecord {

    private static final Logger log = LoggerFactory.getLogger(RabbitRecord.class);
    /** Acked or nacked (by core, or by the broker for an auto-acked delivery). */
    private static final int SETTLED = 1;

    private final RabbitConsumer consumer;
    private final Channel channel;
    private final long deliveryTag;

    /**
     * @param partition the partition queue's index, or -1 for a group's only queue or a broadcast queue
     * @param routingKey the routing key the message was published with
     */
    RabbitRecord(RabbitConsumer consumer, Channel channel, long deliveryTag, boolean redelivered, int partition,
            String routingKey, AMQP.BasicProperties properties, byte[] payload, boolean autoAck) {
        this(consumer, channel, deliveryTag, redelivered, partition, routingKey, properties, AmqpHeaders.headers(properties),
                payload, autoAck);
    }

    private RabbitRecord(RabbitConsumer consumer, Channel channel, long deliveryTag, boolean redelivered, int partition,
            String routingKey, AMQP.BasicProperties properties, Map<String, String> headers, byte[] payload, boolean autoAck) {
        super(consumer.destination(), partition, -1, keyOf(headers, partition, routingKey), headers, payload,
                deliveryCount(properties, redelivered), properties.getMessageId(),
                properties.getTimestamp() == null ? -1 : properties.getTimestamp().getTime(), autoAck ? SETTLED : PENDING);
        this.consumer = consumer;
        this.channel = channel;
        this.deliveryTag = deliveryTag;
    }

    private static String keyOf(Map<String, String> headers, int partition, String routingKey) {
        String subject = headers.get(Envelope.SUBJECT);
        if (subject != null || partition >= 0 || routingKey == null || routingKey.isEmpty()
                || headers.containsKey(Envelope.ID) || headers.containsKey(Envelope.COMPACT)) {
            return subject; // Switchboard's own records carry the id: their routing key is a partition's, not a key
        }
        return routingKey;
    }

    private static int deliveryCount(AMQP.BasicProperties properties, boolean redelivered) {
        int earlier = AmqpHeaders.earlierDeliveries(properties);
        return earlier >= 0 ? earlier + 1 : redelivered ? 2 : 1;
    }

    /** Marks the record settled for an acknowledgement its consumer sends for several; false when it was settled already. */
    boolean settleForCumulativeAck() {
        return settle(PENDING, SETTLED);
    }

    Channel channel() {
        return channel;
    }

    long deliveryTag() {
        return deliveryTag;
    }

    @Override
    public void ack() {
        if (settle(PENDING, SETTLED)) {
            try {
                channel.basicAck(deliveryTag, false);
            } catch (IOException | ShutdownSignalException e) {
                log.debug("Ack of a record from '{}' not sent ({}); the broker delivers it again", destination(), e.toString());
            } finally {
                consumer.settled();
            }
        }
    }

    @Override
    public void nack() {
        if (settle(PENDING, SETTLED)) {
            try {
                channel.basicNack(deliveryTag, false, true);
            } catch (IOException | ShutdownSignalException e) {
                log.debug("Nack of a record from '{}' not sent ({}); the broker delivers it again", destination(), e.toString());
            } finally {
                consumer.settled();
            }
        }
    }
}
