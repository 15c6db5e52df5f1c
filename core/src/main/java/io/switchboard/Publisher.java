package io.switchboard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Publishes messages to one destination. Thread-safe: share one publisher between threads.
 *
 * <p>Input errors are thrown at once, before anything is sent: {@link InvalidMessageException}
 * (null payload, reserved header), {@link MessageTooLargeException}, {@link CodecException},
 * {@link UnsupportedCapabilityException} (a delay on a broker without delayed delivery) and
 * {@link SwitchboardClosedException}. Broker outcomes arrive through the returned stage:
 * {@link PublishException} when the broker refused or could not route the message.
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
     * Publishes several messages; the stage completes when all are acknowledged, or exceptionally
     * with the first failure (the others may still have been published).
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
