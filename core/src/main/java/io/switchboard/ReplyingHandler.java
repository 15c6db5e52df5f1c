package io.switchboard;

/**
 * Handles a request and returns its reply, for {@link SubscriberBuilder#subscribeReplying}: the returned payload is
 * published to the destination the request names in {@link Envelope#REPLY_TO}, with the request's
 * {@link Envelope#CORRELATION_ID}, and the request is acknowledged when the handler returned (the reply is sent
 * without waiting for the broker's acknowledgement, as Spring's {@code @SendTo}).
 *
 * <p>Return null to send no reply (the request is acknowledged). Throw to fail the attempt: it is retried and then
 * dead-lettered as with a {@link MessageHandler}, and no reply is sent, so the requester's stage ends at its time-out.
 *
 * @param <T> the request's payload type
 * @param <R> the reply's payload type
 */
@FunctionalInterface
public interface ReplyingHandler<T, R> {

    /**
     * Handles the request.
     *
     * @param request the request
     * @param context where it came from and which attempt this is
     * @return the reply's payload, or null for no reply
     * @throws Exception any failure, which fails the attempt (retried, then dead-lettered)
     */
    R reply(Message<T> request, DeliveryContext context) throws Exception;
}
