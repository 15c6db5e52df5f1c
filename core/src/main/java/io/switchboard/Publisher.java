package io.switchboard;

import io.switchboard.internal.SendFailures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * Publishes messages to one destination. Thread-safe: share one publisher between threads.
 *
 * <p>Input errors are thrown at once, before anything is sent: {@link InvalidMessageException}
 * (null payload, reserved header), {@link MessageTooLargeException}, {@link CodecException},
 * {@link UnsupportedCapabilityException} (a delay on a broker without delayed delivery) and
 * {@link SwitchboardClosedException}. Broker outcomes arrive through the returned stage:
 * {@link PublishException} when the broker refused or could not route the message.
 *
 * <p>{@code publish} returns a stage that completes with a {@link PublishReceipt}; {@code send}
 * returns nothing, for callers that would not read the receipt (as {@code RabbitTemplate.convertAndSend}
 * in Spring AMQP, or a {@code KafkaTemplate.send} whose future nobody reads): it makes no receipt and,
 * where the broker acknowledges within the call, no future either. A message {@code send} could not
 * deliver is counted in the {@code switchboard.publish} timer with {@code outcome=failure} when meters
 * are on, and logged: at ERROR, with its id, for at-least-once and exactly-once publishers (the
 * message is lost: nothing retries it beyond the broker client's and the configured retry policy's
 * own attempts), at WARN for at-most-once ones. Use {@code publish} where the application must act on
 * a failure.
 *
 * @param <T> payload type
 */
public interface Publisher<T> extends AutoCloseable {

    /**
     * Publishes a payload with a generated id.
     *
     * @param payload the payload, not null
     * @return completes with the receipt when the broker acknowledged the message, exceptionally when it did not
     */
    default CompletionStage<PublishReceipt> publish(T payload) {
        return publish(Message.of(payload));
    }

    /**
     * Publishes a message (key, headers, id, delay).
     *
     * @param message the message
     * @return completes with the receipt when the broker acknowledged the message, exceptionally when it did not
     */
    CompletionStage<PublishReceipt> publish(Message<T> message);

    /**
     * Publishes a message and calls {@code callback} once with the receipt when the broker acknowledged it, or with the
     * error when it did not, as a kafka-clients {@code Callback}: no future is made for it. The callback runs on the
     * broker client's thread that learned the outcome (Kafka's producer I/O thread, RabbitMQ's confirm thread,
     * RocketMQ's callback executor) or, where the broker acknowledges within the call, on the caller's: it must not
     * block; hand slow work to an executor. An exception it throws is logged and does not reach the client. Input
     * errors are thrown at once, as {@link #publish(Message)} throws them, and the callback is then not called.
     *
     * @param message the message
     * @param callback receives the receipt and null, or null and the error
     */
    default void publish(Message<T> message, BiConsumer<? super PublishReceipt, ? super Throwable> callback) {
        if (callback == null) {
            throw new InvalidMessageException("Callback for a message to '" + destination() + "' is null; give one, or "
                    + "use publish(message) for a future or send(message) for neither");
        }
        publish(message).whenComplete((receipt, error) -> {
            try {
                callback.accept(receipt, error);
            } catch (RuntimeException e) {
                SendFailures.callbackFailed(destination(), e);
            }
        });
    }

    /**
     * Sends a payload with a generated id and returns no receipt; see the interface comment for
     * what happens to a failure.
     *
     * @param payload the payload, not null
     * @throws InvalidMessageException and the other input errors, as {@link #publish(Object)} does
     */
    default void send(T payload) {
        send(Message.of(payload));
    }

    /**
     * Sends a message (key, headers, id, delay) and returns no receipt; see the interface comment
     * for what happens to a failure.
     *
     * @param message the message
     * @throws InvalidMessageException and the other input errors, as {@link #publish(Message)} does
     */
    default void send(Message<T> message) {
        SendFailures.watch(publish(message), destination());
    }

    /**
     * Publishes several messages; the stage completes when all are acknowledged, or exceptionally
     * with the first failure (the others may still have been published, unless the broker took them atomically).
     * Every message is checked first: a bad one (too large, null payload, a key the key format refuses) throws and
     * none is sent. The broker takes them in as few calls as it allows: RocketMQ as batches of unkeyed messages to one
     * queue (each batch stored whole or not at all), Kafka through the producer's batching (an exactly-once publisher
     * puts them in one transaction of their own: all visible or none), RabbitMQ back to back on one channel with their
     * confirms together (not atomic). A publisher with resilience policies sends them one by one through its policies.
     *
     * @param messages the messages, published in this order
     * @return completes with the receipts, in the order of the messages
     */
    default CompletionStage<List<PublishReceipt>> publishAll(List<Message<T>> messages) {
        List<CompletableFuture<PublishReceipt>> futures = new ArrayList<>(messages.size());
        for (Message<T> message : messages) {
            futures.add(publish(message).toCompletableFuture());
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<PublishReceipt> receipts = new ArrayList<>(futures.size());
            futures.forEach(f -> receipts.add(f.join()));
            return receipts;
        });
    }

    /** {@return the destination} */
    String destination();

    /** Waits for outstanding messages, then releases the publisher. Idempotent. */
    @Override
    void close();
}
