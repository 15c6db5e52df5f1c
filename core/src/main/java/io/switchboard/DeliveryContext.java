package io.switchboard;

/**
 * What a handler knows about the delivery it is handling.
 *
 * @param destination the destination the message came from
 * @param group the consumer group, or the subscriber's own name for a broadcast subscription
 * @param broker the broker instance name
 * @param partition partition or queue index, or -1
 * @param offset offset within the partition, or -1
 * @param attempt 1 for the first attempt; counts in-process retries and broker redeliveries
 * @param maxAttempts the attempts allowed before the message is dead-lettered
 * @param traceparent the W3C traceparent from the envelope, or null
 * @param idempotencyScope for an {@link Delivery#EXACTLY_ONCE} subscription, the scope in which the
 *     message id is claimed in the {@link io.switchboard.spi.IdempotencyStore} (the id is
 *     {@link Message#id()}); pass both to {@link JdbcIdempotencyStore#completeIn} to mark the id done
 *     in the handler's own transaction. Null for other deliveries
 */
public record DeliveryContext(
        String destination, String group, String broker, int partition, long offset, int attempt, int maxAttempts,
        String traceparent, String idempotencyScope) {

    /**
     * A context without an idempotency scope (not exactly-once).
     *
     * @param destination the destination's name
     * @param group the consumer group
     * @param broker the broker instance the message came from
     * @param partition the partition or queue index, or -1
     * @param offset the offset within the partition, or -1
     * @param attempt the attempt, from 1
     * @param maxAttempts attempts in all before dead-lettering
     * @param traceparent the W3C trace context, or null
     */
    public DeliveryContext(String destination, String group, String broker, int partition, long offset, int attempt,
            int maxAttempts, String traceparent) {
        this(destination, group, broker, partition, offset, attempt, maxAttempts, traceparent, null);
    }

    /**
     * {@return this context with another idempotency scope (the routing layer's, when it deduplicates across
     * instances)}
     *
     * @param scope the idempotency scope
     */
    public DeliveryContext withIdempotencyScope(String scope) {
        return new DeliveryContext(destination, group, broker, partition, offset, attempt, maxAttempts, traceparent, scope);
    }

    /** {@return true when this is not the first attempt} */
    public boolean isRetry() {
        return attempt > 1;
    }

    /** {@return true when a failure now sends the message to the dead-letter destination} */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }
}
