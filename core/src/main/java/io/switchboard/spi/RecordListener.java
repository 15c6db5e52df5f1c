package io.switchboard.spi;

/**
 * Receives records from a {@link RawConsumer}. Implemented by core.
 *
 * <p>{@link #onRecord} never blocks: core queues the record and returns at once, so adapters may
 * call it from their client's delivery thread. The exception: a consumer that agreed to
 * {@link RawConsumer#handleOnDeliveryThreads(int)} has core run the handler inside {@code onRecord}.
 * Records of one partition must be passed in offset order from one thread at a time.
 */
public interface RecordListener {

    /**
     * Takes one record; returns quickly without blocking (unless the consumer agreed to inline handling).
     *
     * @param record the record
     */
    void onRecord(InboundRecord record);

    /**
     * The adapter hands over no more records until those it handed are settled (RocketMQ's orderly consumption waits
     * for a consume call's messages): core ends the batches it is collecting for a batch handler at once instead of
     * waiting for more. An adapter that keeps handing records over need not call it. Never blocks.
     */
    default void onHandoffEnd() {
    }

    /**
     * The consumer failed in a way it cannot recover from by itself (for example the broker
     * cancelled it because its queue was deleted). Core surfaces the error on the subscription.
     *
     * @param error what failed
     */
    void onFailure(Throwable error);

    /**
     * The subscription's {@link ConsumerSpec#filter() filter} dropped a record in the client (Kafka, memory, or a
     * RocketMQ tag-hash collision): it was not passed to {@link #onRecord}, and the adapter has settled it (its offset
     * is committed with the others, or it is acknowledged). Core counts it ({@code switchboard.filtered}). Records a
     * broker filters out itself (RabbitMQ bindings, RocketMQ's broker) never reach the client and are not counted.
     * Never blocks.
     */
    default void onFiltered() {
    }
}
