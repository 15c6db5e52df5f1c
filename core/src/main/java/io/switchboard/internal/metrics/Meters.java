package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;

/** Meter names and the one way latency timers are built. The README's meter table lists them. */
public final class Meters {

    /** Timer: publish call to broker acknowledgement; tag {@code outcome} = success | failure. */
    public static final String PUBLISH = "switchboard.publish";
    /** Function counter: encoded payload bytes published (every {@code switchboard.metrics.timers}). */
    public static final String PUBLISH_BYTES = "switchboard.publish.bytes";
    /** Timer: envelope publish time to handler start (end-to-end latency). */
    public static final String CONSUME_LATENCY = "switchboard.consume.latency";
    /** Timer: handler duration; tag {@code outcome} = ack | retry | dead_letter | duplicate | dropped. */
    public static final String HANDLE = "switchboard.handle";
    /** Counter: records the broker delivered again (delivery count above 1). */
    public static final String REDELIVERIES = "switchboard.redeliveries";
    /** Counter: records a subscription's tag filter dropped in the client (never handled, never dead-lettered). */
    public static final String FILTERED = "switchboard.filtered";
    /** Counter: records sent to the dead-letter destination; tag {@code reason}. */
    public static final String DEAD_LETTERS = "switchboard.dead.letters";
    /** Gauge: records handed to the subscription and not yet settled. */
    public static final String IN_FLIGHT = "switchboard.inflight";
    /** Gauge: records waiting for the group (consumer lag, queue depth or backlog) as the adapter reports it. */
    public static final String BACKLOG = "switchboard.backlog";

    /** Timer: a request published to its reply received (or its end); tag {@code outcome} = success | timeout | failure. */
    public static final String REQUEST = "switchboard.request";
    /** Counter: replies a requester dropped: another requester's on a shared reply destination, or after their time-out. */
    public static final String REPLIES_DROPPED = "switchboard.request.replies.dropped";

    /** Function counter: CPU seconds spent in a broker instance's client (multi-instance Switchboards). */
    public static final String CLIENT_CPU = "switchboard.client.cpu";
    /** Gauge: mean bytes on the wire per published message of a broker instance (sampled; multi-instance Switchboards). */
    public static final String WIRE_BYTES = "switchboard.wire.bytes";

    private Meters() {}

    /** The tags every meter carries. */
    public static Tags base(String broker, String instance, String destination) {
        return Tags.of("broker", broker, "instance", instance, "destination", destination);
    }

    /**
     * A latency meter: a Micrometer {@link Timer} ({@link #latencyTimer}) by default, a {@link LeanTimer} with
     * {@code switchboard.metrics.timers=lean}, a {@link CountingMeter} with {@code off}.
     *
     * @param registered where the meters registered for it are added (for removal), or null when they stay
     */
    public static LatencyMeter latency(MeterRegistry registry, String name, String description, Tags tags,
            MetricsSettings settings, List<Meter> registered) {
        if (!settings.timed()) {
            return CountingMeter.register(registry, name, description, tags, registered);
        }
        if (settings.lean()) {
            return LeanTimer.register(registry, name, description, tags, registered);
        }
        Timer timer = latencyTimer(registry, name, description, tags, settings);
        if (registered != null) {
            registered.add(timer);
        }
        return LatencyMeter.of(timer);
    }

    /** A latency timer with the configured SLOs, and a percentile histogram (aggregable across instances) when switched on. */
    public static Timer latencyTimer(MeterRegistry registry, String name, String description, Tags tags, MetricsSettings settings) {
        return Timer.builder(name)
                .description(description)
                .tags(tags)
                .publishPercentileHistogram(settings.histogram())
                .minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .serviceLevelObjectives(settings.slos())
                .register(registry);
    }
}
