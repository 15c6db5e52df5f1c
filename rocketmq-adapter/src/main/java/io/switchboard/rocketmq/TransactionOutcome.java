package io.switchboard.rocketmq;

/** What a {@link TransactionHandler} decides about a transactional message. */
public enum TransactionOutcome {
    /** The local transaction committed: the broker delivers the message. */
    COMMIT,
    /** The local transaction rolled back: the broker discards the message. */
    ROLLBACK,
    /** Not known yet: the broker asks {@link TransactionHandler#check} again later. */
    UNKNOWN
}
