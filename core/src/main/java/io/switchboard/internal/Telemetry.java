package io.switchboard.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.internal.comparison.ClientCost;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.internal.metrics.ConsumeRecorder;
import io.switchboard.internal.metrics.Meters;
import io.switchboard.internal.metrics.MetricsSettings;
import io.switchboard.internal.metrics.PublishRecorder;
import io.switchboard.internal.metrics.PublisherMeters;
import io.switchboard.internal.metrics.SubscriptionMeters;
import io.switchboard.spi.RawConsumer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The meter and observation registries of a broker instance, and the routing layer's traffic book
 * (multi-instance Switchboards only), any of which may be absent. Without them nothing is created
 * and nothing runs on the hot path.
 *
 * @param meters meter registry or null
 * @param observations observation registry or null
 * @param settings meter settings
 * @param broker adapter id
 * @param instance broker instance name
 * @param traffic the windowed traffic statistics the broker comparison reads, or null
 */
public record Telemetry(MeterRegistry meters, ObservationRegistry observations, MetricsSettings settings, String broker,
        String instance, TrafficBook traffic) {

    /** No metrics, no observations, no comparison. */
    public static final Telemetry NONE = new Telemetry(null, null, MetricsSettings.DEFAULTS, "", "", null);

    /** Where a publisher to {@code destination} reports, or null when nothing listens. */
    public PublishRecorder publisherMeters(String destination) {
        PublishRecorder m = meters == null ? null : new PublisherMeters(meters, Meters.base(broker, instance, destination), settings);
        return PublishRecorder.both(m, traffic == null ? null : traffic.stats(instance, broker, destination));
    }

    /** Where a subscription reports, or null when nothing listens. */
    public ConsumeRecorder subscriptionMeters(String destination, String group, AtomicInteger inFlight, RawConsumer consumer) {
        ConsumeRecorder m = null;
        if (meters != null) {
            Tags tags = Meters.base(broker, instance, destination).and("group", group);
            m = new SubscriptionMeters(meters, tags, settings, inFlight, consumer);
        }
        return ConsumeRecorder.both(m, traffic == null ? null : traffic.stats(instance, broker, destination));
    }

    /** The instance's client cost account (multi-instance Switchboards with the comparison on), else null. */
    public ClientCost.Account cost() {
        return traffic == null ? null : traffic.cost().find(instance);
    }

    /** The observation registry when observations are on, else null. */
    public ObservationRegistry observationsOrNull() {
        return observations == null || observations.isNoop() ? null : observations;
    }
}
