package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.switchboard.spi.RawConsumer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The meters of one subscription, registered once when it starts and removed when it closes. */
public final class SubscriptionMeters implements ConsumeRecorder {

    private static final long BACKLOG_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final MeterRegistry registry;
    private final LatencyMeter endToEnd;
    private final LatencyMeter[] handle = new LatencyMeter[Outcome.values().length];
    private final Counter redeliveries;
    private final Counter deadLettersFailed;
    private final Counter deadLettersUndecodable;
    private final Counter deadLettersNonRetryable;
    private final Counter filtered;
    private final List<Meter> registered = new ArrayList<>();
    private volatile long backlogReadAt;
    private volatile double backlog = Double.NaN;

    /** Registers the meters; the gauges read {@code inFlight} and the consumer's backlog. */
    public SubscriptionMeters(MeterRegistry registry, Tags tags, MetricsSettings settings, AtomicInteger inFlight,
            RawConsumer consumer) {
        this.registry = registry;
        this.endToEnd = Meters.latency(registry, Meters.CONSUME_LATENCY, "Publish time to handler start", tags, settings,
                registered);
        for (Outcome o : Outcome.values()) {
            handle[o.ordinal()] = Meters.latency(registry, Meters.HANDLE, "Handler duration", tags.and("outcome", o.tag()),
                    settings, registered);
        }
        this.redeliveries = keep(Counter.builder(Meters.REDELIVERIES).description("Records the broker delivered again")
                .tags(tags).register(registry));
        this.deadLettersFailed = keep(Counter.builder(Meters.DEAD_LETTERS).description("Records dead-lettered")
                .tags(tags.and("reason", HANDLER_FAILED)).register(registry));
        this.deadLettersUndecodable = keep(Counter.builder(Meters.DEAD_LETTERS).description("Records dead-lettered")
                .tags(tags.and("reason", UNDECODABLE)).register(registry));
        this.deadLettersNonRetryable = keep(Counter.builder(Meters.DEAD_LETTERS).description("Records dead-lettered")
                .tags(tags.and("reason", NON_RETRYABLE)).register(registry));
        this.filtered = keep(Counter.builder(Meters.FILTERED).description("Records the subscription's filter dropped in the client")
                .tags(tags).register(registry));
        keep(Gauge.builder(Meters.IN_FLIGHT, inFlight, AtomicInteger::get).description("Records fetched and not settled")
                .tags(tags).register(registry));
        keep(Gauge.builder(Meters.BACKLOG, consumer, this::readBacklog)
                .description("Records waiting for the group, as the broker reports it").tags(tags).register(registry));
    }

    private <M extends Meter> M keep(M meter) {
        registered.add(meter);
        return meter;
    }

    @Override
    public void endToEnd(Instant published, long nowMicros) {
        if (published != null) {
            long micros = nowMicros - (published.getEpochSecond() * 1_000_000L + published.getNano() / 1000);
            endToEnd.record(Math.max(0, micros) * 1000);
        }
    }

    @Override
    public void endToEndSince(long publishedEpochMillis, long nowMicros) {
        if (publishedEpochMillis >= 0) {
            endToEnd.record(Math.max(0, nowMicros - publishedEpochMillis * 1000) * 1000);
        }
    }

    @Override
    public void handled(Outcome outcome, long startNanos) {
        handle[outcome.ordinal()].recordSince(startNanos);
    }

    @Override
    public boolean timed() {
        return endToEnd.timed();
    }

    @Override
    public void redelivered() {
        redeliveries.increment();
    }

    @Override
    public void deadLettered(String reason) {
        (UNDECODABLE.equals(reason) ? deadLettersUndecodable
                : NON_RETRYABLE.equals(reason) ? deadLettersNonRetryable : deadLettersFailed).increment();
    }

    @Override
    public void filtered() {
        filtered.increment();
    }

    @Override
    public void close() {
        for (Meter meter : registered) {
            registry.remove(meter);
            RegistryShared.forget(registry, meter);
        }
    }

    /** Asks the broker at most every 5 s; gauges are read by the registry, never on the delivery path. */
    private double readBacklog(RawConsumer consumer) {
        long now = System.nanoTime();
        if (now - backlogReadAt > BACKLOG_REFRESH_NANOS) {
            backlogReadAt = now;
            try {
                var value = consumer.backlog();
                backlog = value.isPresent() ? value.getAsLong() : Double.NaN;
            } catch (RuntimeException e) {
                backlog = Double.NaN;
            }
        }
        return backlog;
    }
}
