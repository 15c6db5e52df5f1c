package io.switchboard;

import java.util.concurrent.CompletionStage;

/**
 * A running subscription. {@link #close()} drains gracefully: handlers in flight finish and are
 * acknowledged, nothing new is taken, and messages that were fetched but not started are returned
 * to the broker, so nothing is lost.
 */
public interface Subscription extends AutoCloseable {

    /** {@return the destination} */
    String destination();

    /** {@return the consumer group, or the subscriber's own name for a broadcast subscription} */
    String group();

    /**
     * Completes when the subscription is ready: a message published afterwards will reach it.
     * Completes exceptionally if it could not start.
     *
     * @return completes when ready
     */
    CompletionStage<Void> ready();

    /**
     * Completes when the subscription ends: normally after {@link #close()}, exceptionally with a
     * {@link SubscriptionException} when the broker ended it (for example its queue was deleted).
     *
     * @return completes when the subscription ends
     */
    CompletionStage<Void> terminated();

    /** {@return true until closed or terminated by the broker} */
    boolean isActive();

    /** Drains and stops; see the interface comment. Idempotent. */
    @Override
    void close();
}
