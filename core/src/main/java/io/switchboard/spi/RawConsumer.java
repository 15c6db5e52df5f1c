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
     * Records waiting for this group (consumer lag, queue depth or backlog) if the broker tells,
     * for a gauge. Called rarely, never on the delivery path; may talk to the broker.
     */
    default OptionalLong backlog() {
        return OptionalLong.empty();
    }
}
