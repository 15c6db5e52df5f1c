package io.switchboard.rabbit.internal.publish;

import com.rabbitmq.client.AMQP;
import io.switchboard.PublishException;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/** A record handed to a {@link PublishChannel} and not yet settled; holds one permit of its publisher's window. */
final class Pending {

    final String exchange;
    final String routingKey;
    final AMQP.BasicProperties properties;
    final byte[] body;
    final CompletableFuture<SendResult> future;
    private final SendResult result;
    private final Semaphore window;
    /** Set by the return listener when the broker could not route the record; read when its confirm arrives. */
    volatile String returned;

    Pending(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body,
            CompletableFuture<SendResult> future, SendResult result, Semaphore window) {
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.properties = properties;
        this.body = body;
        this.future = future;
        this.result = result;
        this.window = window;
    }

    /** The broker confirmed it: succeeds unless it came back unroutable first. Never call under a lock. */
    void confirmed() {
        release();
        String unroutable = returned;
        if (unroutable == null) {
            future.complete(result);
        } else {
            future.completeExceptionally(new PublishException("RabbitMQ could not route the record to any queue of '"
                    + exchange + "' (routing key '" + routingKey + "', " + unroutable + "): no consumer group has "
                    + "subscribed to this destination (or partition) yet. Subscribe a group first, or declare it up "
                    + "front with property rabbitmq.required-groups"));
        }
    }

    /** The record was published without confirms: done. Never call under a lock. */
    void sent() {
        release();
        future.complete(result);
    }

    /** Fails the record. Never call under a lock. */
    void fail(Throwable error) {
        release();
        future.completeExceptionally(error);
    }

    private void release() {
        if (window != null) {
            window.release();
        }
    }
}
