package io.switchboard.spi;

import io.switchboard.Delivery;
import io.switchboard.StartPosition;
import java.util.Map;
import java.util.Objects;

/**
 * What core asks of a raw consumer.
 *
 * @param destination the validated destination name
 * @param group the consumer group (competing consumers: each record to one member); for a
 *     broadcast subscription a name unique to that subscriber
 * @param broadcast true when every subscriber must receive every record published after it became
 *     ready (no competition, nothing retained for it after close)
 * @param delivery the guarantee; for {@link Delivery#AT_MOST_ONCE} the adapter acknowledges each
 *     record to the broker before handing it to the listener, and later ack/nack calls are no-ops
 * @param maxInFlight upper bound on records handed to the listener and not yet acked or nacked;
 *     the adapter stops fetching (pause, prefetch, flow control) while the bound is reached
 * @param filter an optional broker-side filter expression (RocketMQ tag), or null
 * @param properties per-subscription overrides of the broker properties (may be empty)
 * @param startFrom where to start reading the partitions (queues) for which the group has no committed position, or
 *     null for the broker's default (a new group at its earliest record, a broadcast subscriber at the end); core has
 *     checked it against {@link Capabilities#startPositions(boolean)}
 */
public record ConsumerSpec(
        String destination,
        String group,
        boolean broadcast,
        Delivery delivery,
        int maxInFlight,
        String filter,
        Map<String, String> properties,
        StartPosition startFrom) {

    /**
     * A spec with the broker's default start position.
     *
     * @param destination the destination's name
     * @param group the consumer group, or the subscriber's own name for a broadcast subscription
     * @param broadcast true for a broadcast subscription
     * @param delivery the delivery guarantee
     * @param maxInFlight records fetched and not yet acknowledged, at most
     * @param filter a broker-side filter expression, or null
     * @param properties the subscription's broker properties
     */
    public ConsumerSpec(String destination, String group, boolean broadcast, Delivery delivery, int maxInFlight,
            String filter, Map<String, String> properties) {
        this(destination, group, broadcast, delivery, maxInFlight, filter, properties, null);
    }

    /**
     * Checks the components and copies the properties.
     *
     * @param destination the destination's name
     * @param group the consumer group, or the subscriber's own name for a broadcast subscription
     * @param broadcast true for a broadcast subscription
     * @param delivery the delivery guarantee
     * @param maxInFlight records fetched and not yet acknowledged, at most
     * @param filter a broker-side filter expression, or null
     * @param properties the subscription's broker properties
     * @param startFrom where a group without committed positions starts, or null for the broker's default
     */
    public ConsumerSpec {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(delivery, "delivery");
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1 but was " + maxInFlight);
        }
        properties = Map.copyOf(properties);
    }
}
