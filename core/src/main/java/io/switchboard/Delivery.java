package io.switchboard;

/**
 * The delivery guarantee a publisher or subscription asks for. It is a contract: a broker that
 * cannot give it makes the build fail with an {@link UnsupportedCapabilityException}; it is never
 * silently weakened.
 */
public enum Delivery {
    /**
     * A message is handled at most once and may be lost: publishers do not wait for replication
     * (Kafka acks=1 or 0, RabbitMQ without confirms, RocketMQ one-way), consumers acknowledge
     * before the handler runs, a failed handler is not retried.
     */
    AT_MOST_ONCE,
    /**
     * A message is never lost and may be handled more than once: publishers wait for the broker's
     * durable acknowledgement, consumers acknowledge only after the handler succeeded, failures are
     * retried and then dead-lettered.
     */
    AT_LEAST_ONCE,
    /**
     * At-least-once plus each message id handled once per consumer group: natively where the
     * broker has transactions (Kafka, RocketMQ publishing), and in every case by deduplicating on
     * the message id in an {@link io.switchboard.spi.IdempotencyStore}.
     */
    EXACTLY_ONCE
}
