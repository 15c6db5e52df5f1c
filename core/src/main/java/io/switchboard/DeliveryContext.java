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
 */
public record DeliveryContext(
        String destination, String group, String broker, int partition, long offset, int attempt, int maxAttempts,
        String traceparent) {

    /** True when this is not the first attempt. */
    public boolean isRetry() {
        return attempt > 1;
    }

    /** True when a failure now sends the message to the dead-letter destination. */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }
}
