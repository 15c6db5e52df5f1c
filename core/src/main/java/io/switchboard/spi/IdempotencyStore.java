package io.switchboard.spi;

/**
 * Remembers which message ids a consumer group has processed, for exactly-once processing on
 * top of at-least-once delivery. Thread-safe.
 *
 * <p>Protocol per record: {@link #tryClaim} before the handler; then {@link #complete} after it
 * succeeded, or {@link #release} after it failed, so a redelivery can claim the id again. A claim
 * that is neither completed nor released (the process died) must not block the id forever in a
 * durable store: implementations expire claims.
 */
public interface IdempotencyStore {

    /**
     * Claims an id for processing.
     *
     * @param scope the consumer group (plus destination) the id belongs to
     * @param messageId the envelope id
     * @return true when the caller may process the record; false when the id was already processed
     *     or is being processed by another delivery (the caller acks it as a duplicate)
     */
    boolean tryClaim(String scope, String messageId);

    /** Records that the id was processed successfully. */
    void complete(String scope, String messageId);

    /** Gives up a claim after a failed attempt. */
    void release(String scope, String messageId);
}
