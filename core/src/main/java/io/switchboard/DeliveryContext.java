package io.switchboard;

/**
 * What a handler knows about the delivery it is handling.
 *
 * @param destination the destination the message came from
 * @param group the consumer group, or the subscriber's own name for a broadcast subscription
 * @param instance the name of the broker instance that delivered the message ({@code main}, or the
 *     name given in {@code switchboard.brokers.<name>}; the adapter id when only one is configured).
 *     With routing across instances this tells which one a message came through
 * @param brokerId the adapter id of that instance: {@code kafka}, {@code rabbitmq}, {@code rocketmq},
 *     {@code memory}; null only in a context built with a deprecated constructor
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
        String destination, String group, String instance, String brokerId, int partition, long offset, int attempt,
        int maxAttempts, String traceparent, String idempotencyScope) {

    /**
     * A context without the adapter id, as in early snapshots.
     *
     * @param destination the destination's name
     * @param group the consumer group
     * @param instance the name of the broker instance the message came from
     * @param partition the partition or queue index, or -1
     * @param offset the offset within the partition, or -1
     * @param attempt the attempt, from 1
     * @param maxAttempts attempts in all before dead-lettering
     * @param traceparent the W3C trace context, or null
     * @param idempotencyScope the idempotency scope, or null
     * @deprecated use the canonical constructor, which takes the instance name and the adapter id
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public DeliveryContext(String destination, String group, String instance, int partition, long offset, int attempt,
            int maxAttempts, String traceparent, String idempotencyScope) {
        this(destination, group, instance, null, partition, offset, attempt, maxAttempts, traceparent, idempotencyScope);
    }

    /**
     * A context without the adapter id or an idempotency scope, as in early snapshots.
     *
     * @param destination the destination's name
     * @param group the consumer group
     * @param instance the name of the broker instance the message came from
     * @param partition the partition or queue index, or -1
     * @param offset the offset within the partition, or -1
     * @param attempt the attempt, from 1
     * @param maxAttempts attempts in all before dead-lettering
     * @param traceparent the W3C trace context, or null
     * @deprecated use the canonical constructor, which takes the instance name and the adapter id
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public DeliveryContext(String destination, String group, String instance, int partition, long offset, int attempt,
            int maxAttempts, String traceparent) {
        this(destination, group, instance, null, partition, offset, attempt, maxAttempts, traceparent, null);
    }

    /**
     * The broker instance's name, which this accessor has always returned (not the adapter id).
     *
     * @return the broker instance's name, as {@link #instance()}
     * @deprecated the name misled: use {@link #instance()} for the instance name ({@code main}) or
     *     {@link #brokerId()} for the broker ({@code kafka})
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public String broker() {
        return instance;
    }

    /**
     * {@return this context with another idempotency scope (the routing layer's, when it deduplicates across
     * instances)}
     *
     * @param scope the idempotency scope
     */
    public DeliveryContext withIdempotencyScope(String scope) {
        return new DeliveryContext(destination, group, instance, brokerId, partition, offset, attempt, maxAttempts,
                traceparent, scope);
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
