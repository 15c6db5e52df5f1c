package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A latency meter that only counts ({@code switchboard.metrics.timers=off}): one adder increment a record, exported as
 * a Micrometer {@link FunctionCounter} under the timer's name and tags (in Prometheus {@code <name>_total}). It is not
 * {@linkplain #timed() timed}, so publishers and subscriptions whose every recorder is like it read no clock for it:
 * the publish's end and the handler's start and end.
 *
 * <p>One instance per meter id and registry, shared by every publisher or subscription with the same tags.
 */
final class CountingMeter implements LatencyMeter {

    private final LongAdder count = new LongAdder();
    private final Meter meter;

    private CountingMeter(MeterRegistry registry, String name, String description, Tags tags) {
        this.meter = FunctionCounter.builder(name, count, LongAdder::sum).description(description + " (count only)")
                .tags(tags).register(registry);
    }

    /** The counting meter registered under this name and tags in {@code registry}, made and registered on first use. */
    static CountingMeter register(MeterRegistry registry, String name, String description, Tags tags, List<Meter> registered) {
        return RegistryShared.get(registry, name, tags, () -> new CountingMeter(registry, name, description, tags),
                meter -> List.of(meter.meter), registered);
    }

    @Override
    public void record(long nanos) {
        count.increment();
    }

    @Override
    public void recordSince(long startNanos) {
        count.increment();
    }

    @Override
    public boolean timed() {
        return false;
    }
}
