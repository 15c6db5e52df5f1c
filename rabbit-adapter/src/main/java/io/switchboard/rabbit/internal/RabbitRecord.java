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
 */
final class RabbitRecord implements InboundRecord {

    private static final Logger log = LoggerFactory.getLogger(RabbitRecord.class);

    private final RabbitConsumer consumer;
    private final Channel channel;
    private final long deliveryTag;
    private final int partition;
    private final Map<String, String> headers;
    private final byte[] payload;
    private final int deliveryCount;
    private final String nativeId;
    private final long brokerTimestamp;
    private final AtomicBoolean settled;

    RabbitRecord(RabbitConsumer consumer, Channel channel, long deliveryTag, boolean redelivered, int partition,
            AMQP.BasicProperties properties, byte[] payload, boolean autoAck) {
        this.consumer = consumer;
        this.channel = channel;
        this.deliveryTag = deliveryTag;
        this.partition = partition;
        this.headers = AmqpHeaders.headers(properties);
        this.payload = payload;
        int earlier = AmqpHeaders.earlierDeliveries(properties);
        this.deliveryCount = earlier >= 0 ? earlier + 1 : redelivered ? 2 : 1;
        this.nativeId = properties.getMessageId();
        this.brokerTimestamp = properties.getTimestamp() == null ? -1 : properties.getTimestamp().getTime();
        this.settled = new AtomicBoolean(autoAck);
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
        return headers.get(Envelope.SUBJECT);
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
