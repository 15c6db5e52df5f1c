package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** The meters of one publisher, registered once when the publisher is built. */
public final class PublisherMeters implements PublishRecorder {

    private final Timer success;
    private final Timer failure;
    private final DistributionSummary size;

    /** Registers the meters (or finds them, when another publisher already registered the same tags). */
    public PublisherMeters(MeterRegistry registry, Tags tags, MetricsSettings settings) {
        this.success = Meters.latencyTimer(registry, Meters.PUBLISH, "Publish call to broker acknowledgement",
                tags.and("outcome", "success"), settings);
        this.failure = Meters.latencyTimer(registry, Meters.PUBLISH, "Publish call to broker acknowledgement",
                tags.and("outcome", "failure"), settings);
        this.size = DistributionSummary.builder(Meters.PUBLISH_SIZE).description("Encoded payload size").baseUnit("bytes")
                .tags(tags).register(registry);
    }

    @Override
    public void published(long startNanos, int payloadBytes, boolean ok) {
        (ok ? success : failure).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        size.record(payloadBytes);
    }
}
