package io.switchboard;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link Requester}. Obtain one from {@link Switchboard#requester(String, Codec, Codec)}. Defaults: replies on
 * {@code <destination>-replies}, a 5 s time-out ({@link #DEFAULT_TIMEOUT}, as Spring Kafka's
 * {@code ReplyingKafkaTemplate}), requests published at-least-once.
 *
 * @param <Q> the request's payload type
 * @param <R> the reply's payload type
 */
public final class RequesterBuilder<Q, R> {

    /** How long a request awaits its reply by default: 5 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    /**
     * What the request destination's name is followed by in the default reply destination's: {@code -replies}, a name
     * every broker accepts (RocketMQ's topics take no dot).
     */
    public static final String REPLIES_SUFFIX = "-replies";

    private final Switchboard switchboard;
    private final String destination;
    private final Codec<Q> requestCodec;
    private final Codec<R> replyCodec;
    private String replyTo;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Delivery delivery = Delivery.AT_LEAST_ONCE;
    private final Map<String, String> properties = new LinkedHashMap<>();

    RequesterBuilder(Switchboard switchboard, String destination, Codec<Q> requestCodec, Codec<R> replyCodec) {
        this.switchboard = switchboard;
        this.destination = Objects.requireNonNull(destination, "destination");
        this.requestCodec = Objects.requireNonNull(requestCodec, "requestCodec");
        this.replyCodec = Objects.requireNonNull(replyCodec, "replyCodec");
    }

    /**
     * The destination replies come back on; default {@code <destination>-replies}. Several requesters (replicas) may
     * share one: each reads every reply and keeps its own. It may not be the request destination itself.
     *
     * @param destination the reply destination's name
     * @return this builder
     */
    public RequesterBuilder<Q, R> replyTo(String destination) {
        this.replyTo = Objects.requireNonNull(destination, "destination");
        return this;
    }

    /**
     * How long a request awaits its reply unless {@link Requester#request(Message, Duration)} says otherwise; default
     * {@link #DEFAULT_TIMEOUT}.
     *
     * @param timeout positive
     * @return this builder
     * @throws ConfigurationException naming the value when it is null, zero or negative
     */
    public RequesterBuilder<Q, R> timeout(Duration timeout) {
        this.timeout = positive(timeout);
        return this;
    }

    /**
     * The guarantee requests are published with; default {@link Delivery#AT_LEAST_ONCE}.
     *
     * @param delivery the delivery guarantee
     * @return this builder
     */
    public RequesterBuilder<Q, R> delivery(Delivery delivery) {
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        return this;
    }

    /**
     * A broker property for the request publisher only.
     *
     * @param key the property name
     * @param value its value
     * @return this builder
     */
    public RequesterBuilder<Q, R> property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /**
     * Starts the reply subscriptions, waits until they are ready (so the first reply is not missed), and makes the
     * request publisher.
     *
     * @return the requester
     * @throws ConfigurationException when the reply destination is the request destination
     * @throws InvalidDestinationException when a name breaks a broker's rule
     */
    public Requester<Q, R> build() {
        String replies = replyTo != null ? replyTo : destination + REPLIES_SUFFIX;
        if (replies.equals(destination)) {
            throw new ConfigurationException("The reply destination of requests to '" + destination + "' is that "
                    + "destination itself: the responders would receive the replies as requests; give another, such as "
                    + "replyTo(\"" + destination + REPLIES_SUFFIX + "\") (the default)");
        }
        return switchboard.newRequester(destination, requestCodec, replyCodec, replies, timeout, delivery, properties);
    }

    static Duration positive(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ConfigurationException("A request's time-out must be positive but was " + timeout
                    + "; how long a request awaits its reply, such as Duration.ofSeconds(5) (the default)");
        }
        return timeout;
    }
}
