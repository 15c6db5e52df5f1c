package io.switchboard.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.internal.comparison.Timeline;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.internal.resilience.ResilienceRegistries;
import io.switchboard.spi.IdempotencyStore;

/**
 * What a Switchboard's broker instances share: the meter registry (bound once), the observation
 * registry, the idempotency store, the Resilience4j registries, and (multi-instance only) the
 * traffic book the broker comparison reads.
 */
public final class Shared {

    private volatile MeterRegistry meters;
    private final ObservationRegistry observations;
    private final IdempotencyStore idempotencyStore;
    private final ResilienceRegistries resilience = new ResilienceRegistries();
    private final TrafficBook traffic;
    private final Timeline events;

    /** The shared services; {@code traffic} is null for a one-instance Switchboard. */
    public Shared(ObservationRegistry observations, IdempotencyStore idempotencyStore, TrafficBook traffic) {
        this(observations, idempotencyStore, traffic, new Timeline(java.time.Clock.systemUTC(), java.time.Duration.ofMinutes(10)));
    }

    /** The shared services with the instances' timeline of events. */
    public Shared(ObservationRegistry observations, IdempotencyStore idempotencyStore, TrafficBook traffic, Timeline events) {
        this.observations = observations;
        this.idempotencyStore = idempotencyStore;
        this.traffic = traffic;
        this.events = events;
        this.resilience.events(events);
    }

    /** The timeline of what happened to each instance (rebalances, route changes, GC pauses, ...). */
    public Timeline events() {
        return events;
    }

    /** Binds {@code registry} unless one is bound already; false when another one was. */
    public synchronized boolean bindTo(MeterRegistry registry) {
        if (meters == null) {
            meters = registry;
            resilience.bindTo(registry);
            events.bindTo(registry);
            return true;
        }
        return meters == registry;
    }

    /** The meter registry, or null. */
    public MeterRegistry meters() {
        return meters;
    }

    /** The observation registry, or null. */
    public ObservationRegistry observations() {
        return observations;
    }

    /** The default idempotency store. */
    public IdempotencyStore idempotencyStore() {
        return idempotencyStore;
    }

    /** The Resilience4j registries. */
    public ResilienceRegistries resilience() {
        return resilience;
    }

    /** The traffic book, or null for a one-instance Switchboard. */
    public TrafficBook traffic() {
        return traffic;
    }
}
