package io.switchboard.spi;

import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * Consumes one destination for one consumer group (or one broadcast subscriber).
 *
 * <p>Life cycle: {@link #start} once, then {@link #stop()} (no new records), then, when core has
 * acked or nacked what it was given, {@link #close()}. Records handed out and neither acked nor
 * nacked when {@link #close()} runs are returned to the broker (they will be delivered again).
 * Stop and close are idempotent and may be called from any thread.
 */
public interface RawConsumer extends AutoCloseable {

    /**
     * Starts delivering records to the listener, respecting {@link ConsumerSpec#maxInFlight()}.
     *
     * @param listener takes every record and the consumer's failure
     * @return completes when the consumer is ready: subscribed, assigned and positioned, so that a
     *     record published afterwards will be delivered; completes exceptionally if it cannot start
     */
    CompletionStage<Void> start(RecordListener listener);

    /** Stops fetching; records already delivered can still be acked or nacked. Idempotent. */
    void stop();

    /** Settles what it can (commits acked offsets), returns the rest, releases resources. Idempotent. */
    @Override
    void close();

    /**
     * Core asks, before {@link #start}, whether it may run the application's handler on the threads
     * that call {@link RecordListener#onRecord} instead of handing each record to a handler thread of
     * its own and back (two thread wake-ups per record saved). An adapter agrees only when those
     * threads are its own delivery threads, never a network I/O thread; each partition's records
     * reach them in order from one thread at a time; waiting on them holds back only this
     * consumer's records; and at most {@code concurrency} of them call {@code onRecord} at once (it
     * may size its thread pool to {@code concurrency} to agree). After agreeing, {@code onRecord}
     * may block for as long as the handler runs, and acks and nacks may come from inside it.
     *
     * @param concurrency the subscription's handler concurrency (1 or more)
     * @return true when core may handle records on the delivery threads; false (the default) keeps
     *     core's own handler threads and the non-blocking {@code onRecord} contract
     */
    default boolean handleOnDeliveryThreads(int concurrency) {
        return false;
    }

    /**
     * {@return true when the thread that hands records over calls {@link RecordListener#onHandoffEnd()} after the last
     * record of each hand-off, before it goes back to its client} With {@link #handleOnDeliveryThreads(int)} agreed, core
     * then collects a batch handler's batch on that thread and runs the handler in {@code onHandoffEnd}, with no hand-off
     * to a thread of its own. Such an adapter also ends a hand-off early (calls {@code onHandoffEnd}) when it must wait
     * for in-flight room, since the records it handed are settled only then.
     */
    default boolean endsHandoffs() {
        return false;
    }

    /**
     * Acknowledges {@code records}, which core settles together in the order they were delivered. Core calls it only
     * when every record this consumer delivered before the last of them is settled already or in the list, so an adapter
     * may acknowledge them with one cumulative acknowledgement (RabbitMQ's {@code multiple} flag). The default acks
     * each.
     *
     * @param records pending records of this consumer, in delivery order
     */
    default void ackInOrder(java.util.List<? extends InboundRecord> records) {
        for (InboundRecord record : records) {
            record.ack();
        }
    }

    /**
     * {@return records waiting for this group (consumer lag, queue depth or backlog) if the broker tells, for a
     * gauge} Called rarely, never on the delivery path; may talk to the broker.
     */
    default OptionalLong backlog() {
        return OptionalLong.empty();
    }
}
