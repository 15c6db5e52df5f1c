package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A latency meter that records with two adder increments and a read ({@code switchboard.metrics.timers=lean}, the
 * default): count and total time exported as a Micrometer {@link FunctionTimer} under the timer's name and tags (in
 * Prometheus {@code <name>_seconds_count} and {@code _sum}, as a {@code Timer} without histogram), and the largest
 * value as a {@link TimeGauge} named {@code <name>.max}. A Micrometer {@code Timer} reads the wall clock on every
 * record to rotate its max (bench/scripts/MeterCost.java: 33.6 ns a record, 24.0 of them the max); this one rotates
 * its max when the gauge is read: the gauge gives the largest value recorded since the read before the last minute's
 * rotation, that is over the last one to two minutes when scraped at least once a minute.
 *
 * <p>One instance per meter id and registry, shared by every publisher or subscription with the same tags, as
 * Micrometer shares a registered {@code Timer}.
 */
public final class LeanTimer implements LatencyMeter {

    private static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);
    private final LongAdder count = new LongAdder();
    private final LongAdder totalNanos = new LongAdder();
    private final AtomicLong max = new AtomicLong();
    private volatile long previousMax;
    private volatile long windowStart = System.nanoTime();
    private final List<Meter> meters;

    private LeanTimer(MeterRegistry registry, String name, String description, Tags tags) {
        FunctionTimer timer = FunctionTimer.builder(name, this, LeanTimer::count, LeanTimer::totalNanos, TimeUnit.NANOSECONDS)
                .description(description).tags(tags).register(registry);
        TimeGauge maxGauge = TimeGauge.builder(name + ".max", this, TimeUnit.NANOSECONDS, LeanTimer::maxNanos)
                .description(description + ": largest value of the last one to two minutes").tags(tags).register(registry);
        this.meters = List.of(timer, maxGauge);
    }

    /**
     * The lean timer registered under this name and tags in {@code registry}, made and registered on first use.
     *
     * @param registered where the meters it registered are added, for removal when their owner closes
     */
    static LeanTimer register(MeterRegistry registry, String name, String description, Tags tags, List<Meter> registered) {
        return RegistryShared.get(registry, name, tags, () -> new LeanTimer(registry, name, description, tags),
                timer -> timer.meters, registered);
    }

    @Override
    public void record(long nanos) {
        count.increment();
        totalNanos.add(nanos);
        if (nanos > max.get()) {
            max.accumulateAndGet(nanos, Math::max);
        }
    }

    private long count() {
        return count.sum();
    }

    private double totalNanos() {
        return totalNanos.sum();
    }

    /** Read by the registry: rotates the window once a minute, never on the record path. */
    private double maxNanos() {
        long now = System.nanoTime();
        if (now - windowStart >= WINDOW_NANOS) {
            synchronized (this) {
                if (now - windowStart >= WINDOW_NANOS) {
                    previousMax = max.getAndSet(0);
                    windowStart = now;
                }
            }
        }
        return Math.max(previousMax, max.get());
    }
}
