package io.switchboard.spring;

import io.switchboard.Publisher;

/**
 * The application's publishers, one per destination and payload type, created on first use with
 * the destination's settings ({@code switchboard.destinations.<name>.*}) and the codec the
 * {@link CodecResolver} picks, then cached. Thread-safe. For injection by qualifier, declare a bean:
 *
 * <pre>{@code
 * @Bean
 * Publisher<Order> orders(Publishers publishers) {
 *     return publishers.get("orders", Order.class);
 * }
 * }</pre>
 */
public interface Publishers {

    /**
     * {@return the publisher of {@code payloadType} to {@code destination}; the same instance on every call with
     * the same arguments}
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param payloadType the payload class
     * @throws io.switchboard.InvalidDestinationException when the name breaks the broker's rule
     */
    <T> Publisher<T> get(String destination, Class<T> payloadType);
}
