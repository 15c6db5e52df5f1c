package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.LongAdder;

/**
 * The meters of one publisher, registered once when the publisher is built: the publish latency by outcome, one
 * latency record a publish, and the published bytes, a function counter {@code switchboard.publish.bytes} fed by an
 * adder (the mean size is bytes over the publish count) rather than a second Micrometer meter that would read the wall
 * clock for its max on every publish.
 */
public final class PublisherMeters implements PublishRecorder {

    private final LatencyMeter success;
    private final LatencyMeter failure;
    private final LongAdder bytes;

    /** Registers the meters (or finds them, when another publisher already registered the same tags). */
    public PublisherMeters(MeterRegistry registry, Tags tags, MetricsSettings settings) {
        this.success = Meters.latency(registry, Meters.PUBLISH, "Publish call to broker acknowledgement",
                tags.and("outcome", "success"), settings, null);
        this.failure = Meters.latency(registry, Meters.PUBLISH, "Publish call to broker acknowledgement",
                tags.and("outcome", "failure"), settings, null);
        this.bytes = RegistryShared.bytes(registry, Meters.PUBLISH_BYTES, "Encoded payload bytes published", tags);
    }

    @Override
    public boolean timed() {
        return success.timed();
    }

    @Override
    public void published(long startNanos, long endNanos, int payloadBytes, boolean ok) {
        (ok ? success : failure).record(endNanos - startNanos);
        bytes.add(payloadBytes);
    }
}
