package io.switchboard;

/**
 * Handles messages in batches ({@link SubscriberBuilder#subscribeBatch}), as Spring Kafka's batch listener or Spring
 * Cloud Stream's batch mode: a list of up to {@link SubscriberBuilder#batchSize(int)} messages, collected for at most
 * {@link SubscriberBuilder#batchWait(java.time.Duration)}.
 *
 * @param <T> payload type
 */
@FunctionalInterface
public interface BatchHandler<T> {

    /**
     * Handles a batch. Return to acknowledge every message not marked with {@link Batch#fail(int, Throwable)}; throw to
     * fail every message of the batch (each retried, then dead-lettered, as a failed message of a
     * {@link MessageHandler}).
     *
     * @param batch the messages and their contexts
     * @throws Exception a failure of the whole batch
     */
    void handle(Batch<T> batch) throws Exception;
}
