package io.switchboard.internal.reply;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.DeliveryContext;
import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.ReplyingHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link ReplyingHandler} and sends its reply to the request's reply destination, through the instance that
 * carried the request (so that the reply comes back whichever broker a split sent the request to). The request is
 * acknowledged when the handler returned, without waiting for the broker to acknowledge the reply (as Spring's
 * {@code @SendTo}): a handler thread that waited for each reply's acknowledgement would answer a few hundred requests a
 * second on Kafka ({@code linger.ms}, {@code acks=all}). A reply the broker refuses is logged at ERROR
 * ({@link Publisher#send}); its requester's stage ends at its time-out.
 */
public final class Responder<T, R> implements MessageHandler<T>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Responder.class);
    /**
     * The most reply destinations one replying subscription publishes to: requests name them, so a bound keeps a
     * stream of distinct names from making publishers without end.
     */
    static final int MAX_REPLY_DESTINATIONS = 64;

    private final ReplyingHandler<T, R> handler;
    private final Codec<R> codec;
    private final ReplyTransport transport;
    private final String destination;
    private final Map<String, Publisher<R>> publishers = new ConcurrentHashMap<>();
    private final AtomicBoolean warnedNoReplyTo = new AtomicBoolean();
    private volatile boolean closed;

    public Responder(ReplyingHandler<T, R> handler, Codec<R> codec, ReplyTransport transport, String destination) {
        this.handler = handler;
        this.codec = codec;
        this.transport = transport;
        this.destination = destination;
    }

    @Override
    public void handle(Message<T> request, DeliveryContext context) throws Exception {
        R reply = handler.reply(request, context);
        if (reply == null) {
            return;
        }
        Map<String, String> headers = request.headers();
        String replyTo = headers.get(Envelope.REPLY_TO);
        String correlationId = headers.get(Envelope.CORRELATION_ID);
        if (replyTo == null || correlationId == null) {
            if (warnedNoReplyTo.compareAndSet(false, true)) {
                log.warn("A request on '{}' (id {}) has no {} or {} header: its reply is not sent (logged once per "
                        + "subscription); publish requests with a Requester, or set both headers", destination,
                        request.id(), Envelope.REPLY_TO, Envelope.CORRELATION_ID);
            }
            return;
        }
        publisherFor(context.instance(), replyTo).send(Message.builder(reply).header(Envelope.CORRELATION_ID, correlationId)
                .build());
    }

    private Publisher<R> publisherFor(String instance, String replyTo) {
        String key = instance + '\n' + replyTo;
        Publisher<R> p = publishers.get(key);
        if (p != null) {
            return p;
        }
        synchronized (publishers) {
            p = publishers.get(key);
            if (p == null) {
                if (closed) {
                    throw new io.switchboard.SwitchboardClosedException("The replying subscription to '" + destination
                            + "' is closed");
                }
                if (publishers.size() >= MAX_REPLY_DESTINATIONS) {
                    throw new InvalidMessageException("A request on '" + destination + "' asks for its reply on '"
                            + replyTo + "', beyond the " + MAX_REPLY_DESTINATIONS + " reply destinations one replying "
                            + "subscription publishes to; requesters should share a reply destination (the default, "
                            + "<destination>-replies)");
                }
                p = transport.publisherOn(instance, replyTo, codec);
                if (p == null) { // the request came through an instance this Switchboard does not name: follow the route
                    p = transport.publisher(replyTo, codec, Delivery.AT_LEAST_ONCE, Map.of());
                }
                publishers.put(key, p);
            }
            return p;
        }
    }

    /** Closes the reply publishers, after the subscription has drained. */
    @Override
    public void close() {
        synchronized (publishers) {
            closed = true;
            publishers.values().forEach(Publisher::close);
            publishers.clear();
        }
    }
}
