package io.switchboard;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes requests to one destination and completes each with its reply, as Spring Kafka's
 * {@code ReplyingKafkaTemplate}, RabbitMQ's reply-to or RocketMQ's request-reply. Obtain one from
 * {@link Switchboard#requester(String, Codec, Codec)}; a subscription answers with
 * {@link SubscriberBuilder#subscribeReplying}. Thread-safe: share one requester between threads.
 *
 * <p>Each request carries {@link Envelope#REPLY_TO} (the requester's reply destination, {@code <destination>-replies}
 * by default) and a {@link Envelope#CORRELATION_ID} unique to it. The pending reply is registered before the request
 * is sent, so a fast reply is never missed. The requester reads its reply destination as a broadcast subscriber on
 * every broker instance of its Switchboard, and a responder replies through the instance that carried the request,
 * so the reply comes back whichever broker a split sent the request to. Replies that belong to another requester on
 * the same reply destination (other replicas) or come after their request's time-out are dropped and counted.
 *
 * <p>The returned future completes with the reply, or exceptionally with {@link RequestTimeoutException}, with the
 * publish failure, with a {@link CodecException} when the reply cannot be decoded, or with
 * {@link SwitchboardClosedException} when the requester closes first. Every ending frees the request's state;
 * cancelling the future frees it too. The future completes on the thread that received the reply (the reply
 * subscription's handler thread) or the time-out's: use the {@code ...Async} stages for slow work.
 *
 * @param <Q> the request's payload type
 * @param <R> the reply's payload type
 */
public interface Requester<Q, R> extends AutoCloseable {

    /**
     * Publishes a request with a generated id and awaits its reply for the requester's time-out.
     *
     * @param payload the request's payload, not null
     * @return completes with the reply
     */
    default CompletableFuture<Message<R>> request(Q payload) {
        return request(Message.of(payload));
    }

    /**
     * Publishes a request (key, headers, id) and awaits its reply for the requester's time-out.
     *
     * @param message the request
     * @return completes with the reply
     */
    CompletableFuture<Message<R>> request(Message<Q> message);

    /**
     * Publishes a request and awaits its reply for {@code timeout}.
     *
     * @param message the request
     * @param timeout how long to await the reply, from now; positive
     * @return completes with the reply
     * @throws ConfigurationException when the time-out is not positive
     */
    CompletableFuture<Message<R>> request(Message<Q> message, Duration timeout);

    /** {@return the destination requests are published to} */
    String destination();

    /** {@return the destination replies are awaited on} */
    String replyTo();

    /** {@return the requests awaiting their reply now} */
    int pending();

    /** Fails the pending requests with {@link SwitchboardClosedException}, then closes the publisher and the reply subscriptions. Idempotent. */
    @Override
    void close();
}
