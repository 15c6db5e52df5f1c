package io.switchboard.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.Envelope;
import io.switchboard.spi.InboundRecord;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
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
final class RabbitRecord implements InboundRecord {

    private static final Logger log = LoggerFactory.getLogger(RabbitRecord.class);

    private final RabbitConsumer consumer;
    private final Channel channel;
    private final long deliveryTag;
    private final int partition;
    private final String key;
    private final Map<String, String> headers;
    private final byte[] payload;
    private final int deliveryCount;
    private final String nativeId;
    private final long brokerTimestamp;
    private final AtomicBoolean settled;

    /**
     * @param partition the partition queue's index, or -1 for a group's only queue or a broadcast queue
     * @param routingKey the routing key the message was published with
     */
    RabbitRecord(RabbitConsumer consumer, Channel channel, long deliveryTag, boolean redelivered, int partition,
            String routingKey, AMQP.BasicProperties properties, byte[] payload, boolean autoAck) {
        this.consumer = consumer;
        this.channel = channel;
        this.deliveryTag = deliveryTag;
        this.partition = partition;
        this.headers = AmqpHeaders.headers(properties);
        this.key = keyOf(headers, partition, routingKey);
        this.payload = payload;
        int earlier = AmqpHeaders.earlierDeliveries(properties);
        this.deliveryCount = earlier >= 0 ? earlier + 1 : redelivered ? 2 : 1;
        this.nativeId = properties.getMessageId();
        this.brokerTimestamp = properties.getTimestamp() == null ? -1 : properties.getTimestamp().getTime();
        this.settled = new AtomicBoolean(autoAck);
    }

    private static String keyOf(Map<String, String> headers, int partition, String routingKey) {
        String subject = headers.get(Envelope.SUBJECT);
        if (subject != null || partition >= 0 || routingKey == null || routingKey.isEmpty()
                || headers.containsKey(Envelope.ID) || headers.containsKey(Envelope.COMPACT)) {
            return subject; // Switchboard's own records carry the id: their routing key is a partition's, not a key
        }
        return routingKey;
    }

    @Override
    public String destination() {
        return consumer.destination();
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public long offset() {
        return -1;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public byte[] payload() {
        return payload;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public String nativeId() {
        return nativeId;
    }

    @Override
    public long brokerTimestamp() {
        return brokerTimestamp;
    }

    @Override
    public void ack() {
        if (settled.compareAndSet(false, true)) {
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
        if (settled.compareAndSet(false, true)) {
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
