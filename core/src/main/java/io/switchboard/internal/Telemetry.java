package io.switchboard.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.internal.metrics.Meters;
import io.switchboard.internal.metrics.MetricsSettings;
import io.switchboard.internal.metrics.PublisherMeters;
import io.switchboard.internal.metrics.SubscriptionMeters;
import io.switchboard.spi.RawConsumer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The meter and observation registries of a Switchboard, either of which may be absent. Without
 * them nothing is created and nothing runs on the hot path.
 *
 * @param meters meter registry or null
 * @param observations observation registry or null
 * @param settings meter settings
 * @param broker adapter id
 * @param instance broker instance name
 */
public record Telemetry(MeterRegistry meters, ObservationRegistry observations, MetricsSettings settings, String broker,
        String instance) {

    /** No metrics, no observations. */
    public static final Telemetry NONE = new Telemetry(null, null, new MetricsSettings(new java.time.Duration[0]), "", "");

    /** The publisher meters for a destination, or null without a meter registry. */
    public PublisherMeters publisherMeters(String destination) {
        return meters == null ? null : new PublisherMeters(meters, Meters.base(broker, instance, destination), settings);
    }

    /** The subscription meters, or null without a meter registry. */
    public SubscriptionMeters subscriptionMeters(String destination, String group, AtomicInteger inFlight, RawConsumer consumer) {
        if (meters == null) {
            return null;
        }
        Tags tags = Meters.base(broker, instance, destination).and("group", group);
        return new SubscriptionMeters(meters, tags, settings, inFlight, consumer);
    }

    /** The observation registry when observations are on, else null. */
    public ObservationRegistry observationsOrNull() {
        return observations == null || observations.isNoop() ? null : observations;
    }
}
