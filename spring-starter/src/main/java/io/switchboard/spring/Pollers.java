package io.switchboard.spring;

import io.switchboard.Poller;

/**
 * The application's pull consumers, one per destination and payload type, made on first use with the destination's
 * settings ({@code switchboard.destinations.<destination>.group}, {@code .delivery}, {@code .retry},
 * {@code .batch-size}, {@code .handler-timeout}, ...), as Spring Cloud Stream's {@code PollableMessageSource}; closed
 * with the application.
 *
 * <pre>{@code
 * for (Poller.Polled<Order> p : pollers.get("orders", Order.class).poll(10, Duration.ofSeconds(1))) {
 *     bill(p.message().payload());
 *     p.ack();
 * }
 * }</pre>
 */
public interface Pollers {

    /**
     * {@return the poller of {@code payloadType} on {@code destination}; the same instance on every call with the same
     * arguments}
     *
     * @param <T> the payload type
     * @param destination the destination to pull from
     * @param payloadType the payload class
     * @throws io.switchboard.InvalidDestinationException when the name breaks the broker's rule
     */
    <T> Poller<T> get(String destination, Class<T> payloadType);
}
