package io.switchboard.spi;

import io.switchboard.Delivery;
import java.util.Map;
import java.util.Objects;

/**
 * What core asks of a raw publisher.
 *
 * @param destination the validated destination name
 * @param delivery the guarantee the publisher must give; see {@link Delivery} for the meaning per
 *     broker
 * @param properties per-publisher overrides of the broker properties (may be empty, never null)
 */
public record PublisherSpec(String destination, Delivery delivery, Map<String, String> properties) {

    /**
     * Checks the components and copies the properties.
     *
     * @param destination the destination's name
     * @param delivery the delivery guarantee
     * @param properties the publisher's broker properties
     */
    public PublisherSpec {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(delivery, "delivery");
        properties = Map.copyOf(properties);
    }
}
