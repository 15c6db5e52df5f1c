package io.switchboard.rabbit.internal.publish;

import com.rabbitmq.client.AMQP;
import io.switchboard.PublishException;
import io.switchboard.spi.SendResult;
import java.util.concurrent.Semaphore;
import java.util.function.BiConsumer;

/** A record handed to a {@link PublishChannel} and not yet settled; holds one permit of its publisher's window. */
final class Pending {

    final String exchange;
    final String routingKey;
    final AMQP.BasicProperties properties;
    final byte[] body;
    /** Called once, with the result or the error: core's publish, or the future of {@link RabbitPublisher#send(io.switchboard.spi.OutboundRecord)}. */
    private final BiConsumer<SendResult, Throwable> done;
    private final SendResult result;
    private final Semaphore window;
    /** Set by the return listener when the broker could not route the record; read when its confirm arrives. */
    volatile String returned;
    /** Set on the connection's thread when the broker nacked it; cleared when it is queued to go again. */
    volatile boolean nacked;
    /** When retrying a nacked record stops ({@code System.nanoTime()}); 0 until its first nack. Under the channel's lock. */
    private long retryDeadline;

    Pending(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body,
            BiConsumer<SendResult, Throwable> done, SendResult result, Semaphore window) {
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.properties = properties;
        this.body = body;
        this.done = done;
        this.result = result;
        this.window = window;
    }

    /**
     * Under the channel's lock, when its channel is retired after a nack: whether it may be published
     * again (it was not nacked, or its retry time, which its first nack started, has not run out).
     */
    boolean retryAfterNack(long now, long retryNanos) {
        if (!nacked) {
            return true;
        }
        nacked = false;
        if (retryDeadline == 0) {
            retryDeadline = now + retryNanos;
            return true;
        }
        return now - retryDeadline <= 0;
    }

    /** The broker acked it ({@code nack} null) or nacked it. Never call under a lock. */
    void settle(PublishException nack) {
        if (nack == null) {
            confirmed();
        } else {
            fail(nack);
        }
    }

    /** The broker confirmed it: succeeds unless it came back unroutable first. Never call under a lock. */
    void confirmed() {
        release();
        String unroutable = returned;
        if (unroutable == null) {
            done.accept(result, null);
        } else {
            done.accept(null, new PublishException("RabbitMQ could not route the record to any queue of '"
                    + exchange + "' (routing key '" + routingKey + "', " + unroutable + "): no consumer group has "
                    + "subscribed to this destination (or partition) yet. Subscribe a group first, or declare it up "
                    + "front with property rabbitmq.required-groups"));
        }
    }

    /** The record was published without confirms: done. Never call under a lock. */
    void sent() {
        release();
        done.accept(result, null);
    }

    /** Fails the record. Never call under a lock. */
    void fail(Throwable error) {
        release();
        done.accept(null, error);
    }

    private void release() {
        if (window != null) {
            window.release();
        }
    }
}
