package io.switchboard.spi;

/**
 * Remembers which message ids a consumer group has processed, for exactly-once processing on
 * top of at-least-once delivery. Thread-safe.
 *
 * <p>Protocol per record: {@link #claim} before the handler; then {@link #complete} after it
 * succeeded, or {@link #release} after it failed, so a redelivery can claim the id again. A claim
 * that is neither completed nor released (the process died) must not block the id forever in a
 * durable store: implementations expire claims and report an expired claim as {@link Claim#CLAIMED}
 * to the next caller (the claim is taken over).
 *
 * <p>{@link Claim#BUSY} is not a duplicate: the id is claimed by a delivery that has not finished
 * and may still fail, release, or die. The caller must not acknowledge the record on BUSY; core
 * claims again with backoff until the answer is {@link Claim#CLAIMED} or {@link Claim#DONE}, and
 * hands the record back to the broker for redelivery when that takes too long.
 */
public interface IdempotencyStore {

    /** The answer to {@link #claim}. */
    enum Claim {
        /** The caller holds the claim now and may process the record. */
        CLAIMED,
        /** The id was processed: the caller acknowledges the record as a duplicate. */
        DONE,
        /** Another delivery holds a live claim: the caller must not acknowledge the record yet. */
        BUSY
    }

    /**
     * Claims an id for processing.
     *
     * @param scope the consumer group (plus destination) the id belongs to
     * @param messageId the envelope id
     * @return {@link Claim#CLAIMED} when the caller may process the record, {@link Claim#DONE} when
     *     the id was already processed, {@link Claim#BUSY} when another delivery is processing it
     */
    Claim claim(String scope, String messageId);

    /**
     * Claims an id; true only when {@link #claim} answers {@link Claim#CLAIMED}.
     *
     * @param scope the idempotency scope
     * @param messageId the message id
     * @return true when the id was claimed
     * @deprecated false means DONE or BUSY, and acknowledging a BUSY record as a duplicate loses it
     *     when its claim holder fails; use {@link #claim}
     */
    @Deprecated(since = "0.1.0")
    default boolean tryClaim(String scope, String messageId) {
        return claim(scope, messageId) == Claim.CLAIMED;
    }

    /**
     * Records that the id was processed successfully. Harmless when the id is already done.
     *
     * @param scope the idempotency scope
     * @param messageId the message id
     */
    void complete(String scope, String messageId);

    /**
     * Gives up a claim after a failed attempt. Does nothing when the id is already done.
     *
     * @param scope the idempotency scope
     * @param messageId the message id
     */
    void release(String scope, String messageId);
}
