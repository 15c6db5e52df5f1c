package io.switchboard.rocketmq;

/**
 * The application's side of RocketMQ transactional messages: a local transaction that decides
 * whether a message is delivered, and the answer to the broker's check-back.
 *
 * <p>With a handler registered for a Switchboard (see {@link RocketMqTransactions#register}),
 * publishers with {@code Delivery.EXACTLY_ONCE} send each message as a RocketMQ half message,
 * which no consumer sees; then {@link #execute} runs and its outcome commits or discards the
 * message. When the outcome is {@link TransactionOutcome#UNKNOWN}, or the process dies before the
 * broker heard it, the broker later calls {@link #check} on any publisher of the same producer
 * group (property {@code rocketmq.producer-group}), possibly in another process.
 *
 * <p>Both methods run on adapter threads, never on the publishing thread; they may block (a
 * database call). An exception counts as {@link TransactionOutcome#UNKNOWN}: the broker checks
 * back later (up to 15 times by default, then it discards the message).
 */
public interface TransactionHandler {

    /**
     * Runs the local transaction of a message that the broker has stored but not yet delivered.
     * Keep the outcome retrievable for {@link #check}, for example in the same database.
     *
     * @param message the message, stored as a half message
     * @return COMMIT to deliver the message, ROLLBACK to drop it, or UNKNOWN to be asked again
     */
    TransactionOutcome execute(TransactionalMessage message);

    /**
     * Tells the broker the outcome of a message's local transaction, when asked again.
     *
     * @param message the message the broker asks about
     * @return COMMIT, ROLLBACK or UNKNOWN
     */
    TransactionOutcome check(TransactionalMessage message);
}
