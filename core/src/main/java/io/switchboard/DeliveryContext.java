package io.switchboard;

import io.switchboard.spi.InboundRecord;
import java.util.Objects;

/**
 * What a handler knows about the delivery it is handling.
 *
 * <p>Its accessors are a record's ({@code destination()}, {@code attempt()}, ...), and so are its equality and text.
 * It is not a record so that the traceparent of a received message is read from its headers only when asked for
 * ({@link #received}): most handlers never read it, and on Kafka finding a header that is absent decodes every
 * header's name.
 */
public final class DeliveryContext {

    /** {@link #traceSource}'s traceparent was read and is absent. */
    private static final String ABSENT = new String("absent"); // its own object: compared by identity

    private final String destination;
    private final String group;
    private final String instance;
    private final String brokerId;
    private final int partition;
    private final long offset;
    private final int attempt;
    private final int maxAttempts;
    private final String idempotencyScope;
    /** The received record, whose headers hold {@link #traceparent} still to be read; null when it was given. */
    private final InboundRecord traceSource;
    /** The traceparent, once known: given, read from {@link #traceSource}, or {@link #ABSENT}. */
    private String traceparent;

    /**
     * A context, as a record's canonical constructor takes it.
     *
     * @param destination the destination the message came from
     * @param group the consumer group, or the subscriber's own name for a broadcast subscription
     * @param instance the name of the broker instance that delivered the message
     * @param brokerId the adapter id of that instance
     * @param partition partition or queue index, or -1
     * @param offset offset within the partition, or -1
     * @param attempt 1 for the first attempt
     * @param maxAttempts the attempts allowed before the message is dead-lettered
     * @param traceparent the W3C traceparent from the envelope, or null
     * @param idempotencyScope the idempotency scope of an exactly-once subscription, or null
     */
    public DeliveryContext(String destination, String group, String instance, String brokerId, int partition, long offset,
            int attempt, int maxAttempts, String traceparent, String idempotencyScope) {
        this(destination, group, instance, brokerId, partition, offset, attempt, maxAttempts, traceparent == null ? ABSENT
                : traceparent, null, idempotencyScope);
    }

    private DeliveryContext(String destination, String group, String instance, String brokerId, int partition, long offset,
            int attempt, int maxAttempts, String traceparent, InboundRecord traceSource, String idempotencyScope) {
        this.destination = destination;
        this.group = group;
        this.instance = instance;
        this.brokerId = brokerId;
        this.partition = partition;
        this.offset = offset;
        this.attempt = attempt;
        this.maxAttempts = maxAttempts;
        this.traceparent = traceparent;
        this.traceSource = traceSource;
        this.idempotencyScope = idempotencyScope;
    }

    /**
     * The context of a received record, whose traceparent is in its headers under {@link Envelope#TRACEPARENT}: read on
     * the first {@link #traceparent()} (or equality, hash or text), not now.
     *
     * @param destination the destination the message came from
     * @param group the consumer group, or the subscriber's own name
     * @param instance the name of the broker instance that delivered the message
     * @param brokerId the adapter id of that instance
     * @param partition partition or queue index, or -1
     * @param offset offset within the partition, or -1
     * @param attempt 1 for the first attempt
     * @param maxAttempts the attempts allowed before the message is dead-lettered
     * @param record the record as received (its headers are read at most once, by the thread that first asks)
     * @param idempotencyScope the idempotency scope of an exactly-once subscription, or null
     * @return the context
     */
    public static DeliveryContext received(String destination, String group, String instance, String brokerId, int partition,
            long offset, int attempt, int maxAttempts, InboundRecord record, String idempotencyScope) {
        return new DeliveryContext(destination, group, instance, brokerId, partition, offset, attempt, maxAttempts, null,
                Objects.requireNonNull(record, "record"), idempotencyScope);
    }

    /** {@return the destination the message came from} */
    public String destination() {
        return destination;
    }

    /** {@return the consumer group, or the subscriber's own name for a broadcast subscription} */
    public String group() {
        return group;
    }

    /**
     * {@return the name of the broker instance that delivered the message ({@code main}, or the name given in
     * {@code switchboard.brokers.<name>}; the adapter id when only one is configured)} With routing across instances
     * this tells which one a message came through.
     */
    public String instance() {
        return instance;
    }

    /**
     * {@return the adapter id of that instance: {@code kafka}, {@code rabbitmq}, {@code rocketmq}, {@code memory}; null
     * only in a context built with a deprecated constructor}
     */
    public String brokerId() {
        return brokerId;
    }

    /** {@return the partition or queue index, or -1} */
    public int partition() {
        return partition;
    }

    /** {@return the offset within the partition, or -1} */
    public long offset() {
        return offset;
    }

    /** {@return 1 for the first attempt; counts in-process retries and broker redeliveries} */
    public int attempt() {
        return attempt;
    }

    /** {@return the attempts allowed before the message is dead-lettered} */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** {@return the W3C traceparent from the envelope, or null} */
    public String traceparent() {
        String t = traceparent;
        if (t == null) { // a received message's, read once; a race reads the same immutable value twice
            t = traceSource.headers().get(Envelope.TRACEPARENT);
            t = t == null ? ABSENT : t;
            traceparent = t;
        }
        return t == ABSENT ? null : t;
    }

    /**
     * {@return for an {@link Delivery#EXACTLY_ONCE} subscription, the scope in which the message id is claimed in the
     * {@link io.switchboard.spi.IdempotencyStore} (the id is {@link Message#id()}); null for other deliveries} Pass both
     * to {@link JdbcIdempotencyStore#completeIn} to mark the id done in the handler's own transaction.
     */
    public String idempotencyScope() {
        return idempotencyScope;
    }

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
                traceparent, traceSource, scope);
    }

    /** {@return true when this is not the first attempt} */
    public boolean isRetry() {
        return attempt > 1;
    }

    /** {@return true when a failure now sends the message to the dead-letter destination} */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof DeliveryContext c && partition == c.partition && offset == c.offset
                && attempt == c.attempt && maxAttempts == c.maxAttempts && Objects.equals(destination, c.destination)
                && Objects.equals(group, c.group) && Objects.equals(instance, c.instance)
                && Objects.equals(brokerId, c.brokerId) && Objects.equals(traceparent(), c.traceparent())
                && Objects.equals(idempotencyScope, c.idempotencyScope);
    }

    @Override
    public int hashCode() {
        return Objects.hash(destination, group, instance, brokerId, partition, offset, attempt, maxAttempts, traceparent(),
                idempotencyScope);
    }

    @Override
    public String toString() {
        return "DeliveryContext[destination=" + destination + ", group=" + group + ", instance=" + instance + ", brokerId="
                + brokerId + ", partition=" + partition + ", offset=" + offset + ", attempt=" + attempt + ", maxAttempts="
                + maxAttempts + ", traceparent=" + traceparent() + ", idempotencyScope=" + idempotencyScope + "]";
    }
}
