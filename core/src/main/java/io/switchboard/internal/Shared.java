package io.switchboard.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
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

    /** The shared services; {@code traffic} is null for a one-instance Switchboard. */
    public Shared(ObservationRegistry observations, IdempotencyStore idempotencyStore, TrafficBook traffic) {
        this.observations = observations;
        this.idempotencyStore = idempotencyStore;
        this.traffic = traffic;
    }

    /** Binds {@code registry} unless one is bound already; false when another one was. */
    public synchronized boolean bindTo(MeterRegistry registry) {
        if (meters == null) {
            meters = registry;
            resilience.bindTo(registry);
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
