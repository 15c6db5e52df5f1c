package io.switchboard.spring;

import io.switchboard.Requester;

/**
 * The application's requesters, one per destination and pair of payload types, made on first use with the codecs
 * the starter resolves and {@code switchboard.destinations.<destination>.reply-to} and {@code .reply-timeout}; as
 * Spring Kafka's {@code ReplyingKafkaTemplate} or Spring AMQP's {@code RabbitTemplate.convertSendAndReceive}. A
 * {@link SwitchboardListener} method that returns a value answers them.
 *
 * <pre>{@code
 * Message<Quote> quote = requesters.get("quotes", QuoteRequest.class, Quote.class)
 *         .request(new QuoteRequest("sku-1")).get(5, TimeUnit.SECONDS);
 * }</pre>
 */
public interface Requesters {

    /**
     * {@return the requester of {@code requestType} to {@code destination} awaiting {@code replyType} replies; the same
     * instance on every call with the same arguments}
     *
     * @param <Q> the request's payload type
     * @param <R> the reply's payload type
     * @param destination the destination requests go to
     * @param requestType the request's payload class
     * @param replyType the reply's payload class
     * @throws io.switchboard.InvalidDestinationException when a name breaks the broker's rule
     */
    <Q, R> Requester<Q, R> get(String destination, Class<Q> requestType, Class<R> replyType);
}
