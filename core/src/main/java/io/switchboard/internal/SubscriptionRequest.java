package io.switchboard.internal;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.RetryPolicy;
import io.switchboard.StartPosition;
import io.switchboard.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * What a subscriber asked for, before it is bound to a broker instance. A routed subscription
 * makes one {@link DefaultSubscription} per instance from the same request.
 *
 * @param destination destination
 * @param codec payload codec
 * @param group consumer group as given
 * @param broadcast broadcast instead of a group
 * @param delivery guarantee
 * @param concurrency handler lanes per instance
 * @param maxInFlight prefetch per instance
 * @param retry retry policy
 * @param deadLetter dead-letter destination, or null for the broker's default
 * @param filter broker-side filter, or null
 * @param drainTimeout drain time on close
 * @param idempotencyStore store for exactly-once, or null for the Switchboard's
 * @param properties broker properties for this subscription
 * @param effectiveGroup the group the broker sees (broadcast subscribers get a unique one, the same on every instance)
 * @param startFrom where a group without committed positions starts, or null for the broker's default
 * @param <T> payload type
 */
public record SubscriptionRequest<T>(String destination, Codec<T> codec, String group, boolean broadcast, Delivery delivery,
        int concurrency, int maxInFlight, RetryPolicy retry, String deadLetter, String filter, Duration drainTimeout,
        IdempotencyStore idempotencyStore, Map<String, String> properties, String effectiveGroup,
        StartPosition startFrom) {

    /** A request with the broker's default start position; the effective group is derived. */
    public static <T> SubscriptionRequest<T> of(String destination, Codec<T> codec, String group, boolean broadcast,
            Delivery delivery, int concurrency, int maxInFlight, RetryPolicy retry, String deadLetter, String filter,
            Duration drainTimeout, IdempotencyStore idempotencyStore, Map<String, String> properties) {
        return of(destination, codec, group, broadcast, delivery, concurrency, maxInFlight, retry, deadLetter, filter,
                drainTimeout, idempotencyStore, properties, null);
    }

    /** A request; the effective group is derived. */
    public static <T> SubscriptionRequest<T> of(String destination, Codec<T> codec, String group, boolean broadcast,
            Delivery delivery, int concurrency, int maxInFlight, RetryPolicy retry, String deadLetter, String filter,
            Duration drainTimeout, IdempotencyStore idempotencyStore, Map<String, String> properties,
            StartPosition startFrom) {
        String effective = broadcast ? group + "-" + UUID.randomUUID().toString().substring(0, 8) : group;
        return new SubscriptionRequest<>(destination, codec, group, broadcast, delivery, concurrency, maxInFlight, retry,
                deadLetter, filter, drainTimeout, idempotencyStore, Map.copyOf(properties), effective, startFrom);
    }
}
