package io.switchboard;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link Publisher}. Obtain one from {@link Switchboard#publisher(String, Codec)}.
 *
 * @param <T> payload type
 */
public final class PublisherBuilder<T> {

    private final Switchboard switchboard;
    private final String destination;
    private final Codec<T> codec;
    private Delivery delivery = Delivery.AT_LEAST_ONCE;
    private final Map<String, String> properties = new LinkedHashMap<>();

    PublisherBuilder(Switchboard switchboard, String destination, Codec<T> codec) {
        this.switchboard = switchboard;
        this.destination = destination;
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    /**
     * The guarantee; default {@link Delivery#AT_LEAST_ONCE}.
     *
     * @param delivery the delivery guarantee
     * @return this builder
     */
    public PublisherBuilder<T> delivery(Delivery delivery) {
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        return this;
    }

    /**
     * A broker property for this publisher only (for example {@code kafka.linger.ms}).
     *
     * @param key the property name
     * @param value its value
     * @return this builder
     */
    public PublisherBuilder<T> property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /**
     * Validates the destination on every instance its route can use, provisions it when
     * auto-provisioning is on, and creates the publisher.
     *
     * @return the publisher
     * @throws InvalidDestinationException when the name breaks a broker's rule
     */
    public Publisher<T> build() {
        return switchboard.newPublisher(destination, codec, delivery, properties);
    }
}
