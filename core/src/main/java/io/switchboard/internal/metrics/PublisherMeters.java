package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.LongAdder;

/**
 * The meters of one publisher, registered once when the publisher is built: the publish latency by outcome and the
 * published bytes (a {@link DistributionSummary} {@code switchboard.publish.size} with Micrometer timers, a byte
 * counter {@code switchboard.publish.bytes} with lean meters, whose mean size is bytes over the publish count).
 */
public final class PublisherMeters implements PublishRecorder {

    private final LatencyMeter success;
    private final LatencyMeter failure;
    private final DistributionSummary size;
    private final LongAdder bytes;

    /** Registers the meters (or finds them, when another publisher already registered the same tags). */
    public PublisherMeters(MeterRegistry registry, Tags tags, MetricsSettings settings) {
        this.success = Meters.latency(registry, Meters.PUBLISH, "Publish call to broker acknowledgement",
                tags.and("outcome", "success"), settings, null);
        this.failure = Meters.latency(registry, Meters.PUBLISH, "Publish call to broker acknowledgement",
                tags.and("outcome", "failure"), settings, null);
        if (settings.lean()) {
            this.size = null;
            this.bytes = RegistryShared.bytes(registry, Meters.PUBLISH_BYTES, "Encoded payload bytes published", tags);
        } else {
            this.size = DistributionSummary.builder(Meters.PUBLISH_SIZE).description("Encoded payload size").baseUnit("bytes")
                    .tags(tags).register(registry);
            this.bytes = null;
        }
    }

    @Override
    public boolean timed() {
        return success.timed();
    }

    @Override
    public void published(long startNanos, long endNanos, int payloadBytes, boolean ok) {
        (ok ? success : failure).record(endNanos - startNanos);
        if (bytes != null) {
            bytes.add(payloadBytes);
        } else {
            size.record(payloadBytes);
        }
    }
}
