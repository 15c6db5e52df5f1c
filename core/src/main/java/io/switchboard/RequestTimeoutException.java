package io.switchboard;

import java.time.Duration;

/**
 * A request's stage ends with this when no reply came within its time-out ({@link Requester}); the pending reply is
 * forgotten, and a reply that comes later is dropped and counted
 * ({@code switchboard.request.replies.dropped}).
 */
public class RequestTimeoutException extends SwitchboardException {

    private static final long serialVersionUID = 1L;

    /** The destination the request was published to. */
    private final String destination;
    /** The request's correlation id. */
    private final String correlationId;
    /** How long the reply was awaited. */
    private final Duration timeout;

    /**
     * A time-out.
     *
     * @param destination the destination the request was published to
     * @param replyTo the destination its reply was awaited on
     * @param correlationId the request's correlation id
     * @param timeout how long the reply was awaited
     * @param published whether the broker had acknowledged the request
     */
    public RequestTimeoutException(String destination, String replyTo, String correlationId, Duration timeout,
            boolean published) {
        super("No reply within " + timeout.toMillis() + " ms to the request " + correlationId + " on '" + destination
                + "' (replies awaited on '" + replyTo + "'; the request " + (published ? "was" : "was not yet")
                + " acknowledged by the broker): is a subscription replying on '" + destination
                + "' (SubscriberBuilder.subscribeReplying)? Give a longer time-out to request(message, timeout) "
                + "or RequesterBuilder.timeout if the responder is slow");
        this.destination = destination;
        this.correlationId = correlationId;
        this.timeout = timeout;
    }

    /** {@return the destination the request was published to} */
    public String destination() {
        return destination;
    }

    /** {@return the request's correlation id} */
    public String correlationId() {
        return correlationId;
    }

    /** {@return how long the reply was awaited} */
    public Duration timeout() {
        return timeout;
    }
}
