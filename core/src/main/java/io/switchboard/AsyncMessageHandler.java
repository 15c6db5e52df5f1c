package io.switchboard;

import java.util.concurrent.CompletionStage;

/**
 * Handles one message asynchronously: the handler starts the work, possibly hands it to an executor of its own, and
 * returns a stage that completes when the work is done. Subscribe it with
 * {@link SubscriberBuilder#subscribeAsync(AsyncMessageHandler)}.
 *
 * <ul>
 *   <li>The stage <b>completing normally</b> acknowledges the message (its value is ignored).</li>
 *   <li>The stage <b>completing exceptionally</b> fails the attempt exactly as a {@link MessageHandler} throwing that
 *       exception would: retried per the subscription's {@link RetryPolicy}, dead-lettered with reason
 *       {@code handler-failed} after the last attempt, and at once with reason {@code non-retryable} when the policy
 *       does not retry the exception. A {@link java.util.concurrent.CompletionException} around the failure is
 *       unwrapped, so the dead letter names the failure itself.</li>
 *   <li>The stage <b>not completing</b> within {@link SubscriberBuilder#handlerTimeout(java.time.Duration)} fails
 *       the attempt with a {@link java.util.concurrent.TimeoutException} naming the destination, group, message id
 *       and the setting; a completion after that is ignored.</li>
 *   <li>Returning <b>null</b> (or throwing) fails the attempt.</li>
 * </ul>
 *
 * <p>Order and the in-flight bound are those of a {@link MessageHandler}: the next message of the same partition or
 * key is handed to the handler only once the previous one's stage completed, while other partitions and keys go on
 * on their own handler threads ({@link SubscriberBuilder#concurrency(int)}); messages whose stage has not completed
 * count towards {@link SubscriberBuilder#maxInFlight(int)}. Under {@link Delivery#EXACTLY_ONCE} the message id counts
 * as handled when the stage completed normally; under {@link Delivery#AT_MOST_ONCE} a failed stage is logged and not
 * retried. This is the counterpart of a manually acknowledging listener (Spring Kafka's {@code Acknowledgment}) that
 * keeps per-key order: completing the stage is the acknowledgement.
 *
 * @param <T> payload type
 */
@FunctionalInterface
public interface AsyncMessageHandler<T> {

    /**
     * Starts handling the message and returns the stage of its completion; should not block.
     *
     * @param message the message
     * @param context where it came from and which attempt this is
     * @return a stage completing normally to acknowledge the message or exceptionally to fail the attempt; not null
     * @throws Exception a failure before any stage was made, which fails the attempt as an exceptional stage would
     */
    CompletionStage<?> handle(Message<T> message, DeliveryContext context) throws Exception;
}
