package io.switchboard;

/**
 * Handles one message. Returning normally acknowledges it; throwing fails the attempt (retried
 * under at-least-once and exactly-once, then dead-lettered; dead-lettered at once when the
 * subscription's {@link RetryPolicy} does not retry the exception). Called from one of the
 * subscription's handler threads; messages of one partition or key are handled one at a time, in
 * order. A handler that hands the work to an executor of its own and completes later is an
 * {@link AsyncMessageHandler}.
 *
 * @param <T> payload type
 */
@FunctionalInterface
public interface MessageHandler<T> {

    /**
     * Handles the message; throw to fail the attempt.
     *
     * @param message the message
     * @param context where it came from and which attempt this is
     * @throws Exception any failure, which fails the attempt: retried, then dead-lettered (at once when the
     *     retry policy does not retry it)
     */
    void handle(Message<T> message, DeliveryContext context) throws Exception;
}
