package io.switchboard.internal;

import io.switchboard.BrokerInstance;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.MessageHandler;
import io.switchboard.SwitchboardException;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.internal.idempotency.ClaimWait;
import io.switchboard.internal.metrics.MetricsSettings;
import io.switchboard.internal.resilience.ResilienceSettings;
import io.switchboard.internal.resilience.ResilientPublisher;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.internal.comparison.ConsumerLag;
import io.switchboard.internal.provision.AwaitingDestination;
import io.switchboard.internal.provision.ProvisionQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One named broker instance: its adapter and configuration, and the one place where publishers
 * and subscriptions are made on an adapter (validation, provisioning, resilience, telemetry).
 * The routing layer makes them here for each instance a route uses.
 */
public final class Instance implements BrokerInstance, AutoCloseable {

    /** The longest a send waits for its destination to be provisioned. */
    private static final Duration PROVISION_WAIT = Duration.ofMinutes(2);

    private final int index;
    private final BrokerConfig config;
    private final BrokerAdapter adapter;
    private final Shared shared;
    private final MetricsSettings metricsSettings;
    private final ConsumerLag lag;
    /** Null when {@code switchboard.auto-provision} is off. */
    private final ProvisionQueue provisioning;

    /** An instance at position {@code index} among its Switchboard's instances. */
    public Instance(int index, BrokerConfig config, BrokerAdapter adapter, Shared shared) {
        this.index = index;
        this.config = config;
        this.adapter = adapter;
        this.shared = shared;
        this.metricsSettings = MetricsSettings.from(config);
        KeyFormat.of(config); // an unknown key format of the instance fails its Switchboard's build()
        long threshold = config.getLong(ConsumerLag.THRESHOLD, 0);
        if (threshold < 0) {
            throw new io.switchboard.ConfigurationException("Property '" + ConsumerLag.THRESHOLD + "' of broker instance '"
                    + config.instanceName() + "' is " + threshold + "; use a number of records (0 turns the check off)");
        }
        this.lag = new ConsumerLag(config.getPositiveDuration(ConsumerLag.REFRESH, Duration.ofSeconds(5)), threshold);
        if (shared.traffic() != null) {
            shared.traffic().cost().account(config.instanceName(), adapter.clientThreads());
            shared.traffic().batches().register(config.instanceName(), adapter::recordsPerRequest);
        }
        this.provisioning = Validation.autoProvisioning(config, adapter.capabilities(), adapter.provisioner());
    }

    /** The consumer lag of this instance's live subscriptions. */
    public ConsumerLag lag() {
        return lag;
    }

    /** Position among the Switchboard's instances. */
    public int index() {
        return index;
    }

    @Override
    public String name() {
        return config.instanceName();
    }

    @Override
    public String brokerId() {
        return adapter.id();
    }

    @Override
    public Capabilities capabilities() {
        return adapter.capabilities();
    }

    @Override
    public BrokerConfig config() {
        return config;
    }

    @Override
    public Provisioner provisioning() {
        return provisioning == null ? adapter.provisioner() : provisioning.view();
    }

    @Override
    public BrokerHealth health(Duration timeout) {
        BrokerHealth health = adapter.health(timeout);
        if (health.status() != BrokerHealth.Status.UP) {
            return health;
        }
        return lag.overThreshold().map(why -> BrokerHealth.degraded(health.reason() + "; " + why)).orElse(health);
    }

    /** The adapter. */
    public BrokerAdapter adapter() {
        return adapter;
    }

    /** The shared services. */
    public Shared shared() {
        return shared;
    }

    /** Meters, observations and traffic statistics for what is made now. */
    public Telemetry telemetry() {
        if (shared.meters() == null && (shared.observations() == null || shared.observations().isNoop())
                && shared.traffic() == null) {
            return Telemetry.NONE;
        }
        return new Telemetry(shared.meters(), shared.observations(), metricsSettings, adapter.id(), name(), shared.traffic());
    }

    /**
     * Validates the destination, provisions it when auto-provisioning is on, and makes a publisher.
     *
     * @throws io.switchboard.InvalidDestinationException when the name breaks the broker's rule
     */
    public <T> DefaultPublisher<T> publisher(String destination, Codec<T> codec, Delivery delivery, Map<String, String> properties,
            Consumer<AutoCloseable> onClose) {
        Validation.destination(capabilities(), name(), destination);
        KeyFormat.of(properties, config); // an unknown name fails before the adapter makes anything
        CompletableFuture<Void> provisioned = provisioning == null ? null : provisioning.submit(List.of(destination), null);
        PublisherSpec spec = new PublisherSpec(destination, delivery, properties);
        RawPublisher adapterPublisher = created("a publisher", destination, () -> adapter.createPublisher(spec));
        if (provisioned != null && !provisioned.isDone()) {
            adapterPublisher = new AwaitingDestination(adapterPublisher, provisioned, destination, name(), PROVISION_WAIT);
        }
        RawPublisher raw = ResilientPublisher.wrap(adapterPublisher, ResilienceSettings.forDestination(config, destination),
                shared.resilience(), name(), destination);
        return new DefaultPublisher<>(raw, spec, codec, capabilities(), config, telemetry(), onClose);
    }

    /** The adapter's publisher of a subscription's dead-letter destination; sends wait while the destination is made. */
    public RawPublisher deadLetterPublisher(String deadLetter, Map<String, String> properties) {
        RawPublisher raw = created("a dead-letter publisher", deadLetter,
                () -> adapter.createPublisher(new PublisherSpec(deadLetter, Delivery.AT_LEAST_ONCE, properties)));
        CompletableFuture<Void> pending = provisioning == null ? null : provisioning.pending(deadLetter);
        return pending == null || pending.isDone() && !pending.isCompletedExceptionally() ? raw
                : new AwaitingDestination(raw, pending, deadLetter, name(), PROVISION_WAIT);
    }

    /**
     * Runs an adapter's create call; an unexpected client error (not already one of Switchboard's,
     * which name the value and the fix) becomes a {@link SwitchboardException} naming the instance,
     * the broker and the destination. The one place for this wrapping, for every adapter.
     */
    public <R> R created(String what, String destination, java.util.function.Supplier<R> create) {
        try {
            return create.get();
        } catch (SwitchboardException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SwitchboardException("Broker instance '" + name() + "' (" + brokerId() + ") cannot create " + what
                    + " for '" + destination + "': " + e + "; check the instance's " + brokerId() + ".* properties and that"
                    + " the broker is reachable", e);
        }
    }

    /** The dead-letter destination of a request on this instance. */
    public String deadLetterOf(SubscriptionRequest<?> request) {
        return request.deadLetter() != null ? request.deadLetter() : capabilities().deadLetterDestination(request.destination());
    }

    /**
     * Checks a request against this instance without side effects.
     *
     * @throws io.switchboard.InvalidDestinationException when a name breaks the broker's rule
     * @throws UnsupportedCapabilityException when broadcast, filtering or a start position is asked of a broker without it
     */
    public void check(SubscriptionRequest<?> request) {
        Capabilities caps = capabilities();
        Validation.destination(caps, name(), request.destination());
        KeyFormat.of(request.properties(), config);
        if (request.broadcast() && !caps.broadcast()) {
            throw new UnsupportedCapabilityException("Broker '" + name() + "' (" + caps.brokerId()
                    + ") cannot broadcast; alternative: give each subscriber its own consumer group with group(name)");
        }
        if (request.filter() != null && !caps.filtering()) {
            throw new UnsupportedCapabilityException("Broker '" + name() + "' (" + caps.brokerId()
                    + ") has no broker-side filtering for filter '" + request.filter()
                    + "'; alternative: filter in the handler, or publish to separate destinations");
        }
        io.switchboard.StartPosition start = request.startFrom();
        if (start != null && !caps.startPositions(request.broadcast()).contains(start.kind())) {
            throw new UnsupportedCapabilityException("Broker '" + name() + "' (" + caps.brokerId() + ") cannot start the "
                    + (request.broadcast() ? "broadcast subscription" : "subscription of group '" + request.group() + "'")
                    + " to '" + request.destination() + "' from " + start + ": " + caps.startPositionLimits()
                    + "; it accepts " + accepted(caps.startPositions(request.broadcast())) + " there");
        }
        Validation.destination(caps, name(), deadLetterOf(request));
        String retry = retryOf(request);
        if (retry != null) {
            if (!caps.delayedDelivery()) {
                throw new UnsupportedCapabilityException("Broker '" + name() + "' (" + caps.brokerId() + ") has no delayed "
                        + "delivery for the broker-side retries of '" + request.destination() + "' (RetryPolicy.viaBroker("
                        + request.retry().brokerSideFrom() + ")); alternative: retry in-process (no viaBroker)");
            }
            Validation.destination(caps, name(), retry);
        }
    }

    private static String accepted(java.util.Set<io.switchboard.StartPosition.Kind> kinds) {
        if (kinds.isEmpty()) {
            return "no startFrom";
        }
        return kinds.stream().sorted().map(k -> switch (k) {
            case EARLIEST -> "earliest";
            case LATEST -> "latest";
            case OFFSET -> "offset:<n>";
            case TIME -> "time:<instant>";
        }).collect(java.util.stream.Collectors.joining(", "));
    }

    /** The retry destination of a request whose policy retries through the broker, else null. */
    private static String retryOf(SubscriptionRequest<?> request) {
        return request.retry().brokerSideFrom() == null || request.delivery() == io.switchboard.Delivery.AT_MOST_ONCE ? null
                : BrokerRetry.destinationOf(request.destination(), request.effectiveGroup());
    }

    /** Checks, provisions the destination and its dead-letter destination, and starts a subscription. */
    public <T> DefaultSubscription<T> subscribe(SubscriptionRequest<T> request, MessageHandler<T> handler,
            Consumer<AutoCloseable> onClose) {
        check(request);
        Dispatch dispatch = Dispatch.of(request.properties(), config);
        String dlq = deadLetterOf(request);
        List<String> destinations = new ArrayList<>(List.of(request.destination()));
        if (retryOf(request) != null) {
            destinations.add(retryOf(request));
        }
        ConsumerSpec spec = new ConsumerSpec(request.destination(), request.effectiveGroup(), request.broadcast(),
                request.delivery(), request.maxInFlight(), request.filter(), request.properties(), request.startFrom());
        SubscriptionSettings settings = new SubscriptionSettings(name(), spec, request.concurrency(), request.retry(), dlq,
                request.drainTimeout(), request.idempotencyStore() != null ? request.idempotencyStore() : shared.idempotencyStore(),
                telemetry(), dispatch, ClaimWait.bound(request.properties(), config));
        ConsumerLag.Entry reading = lag.add(request.destination(), request.effectiveGroup());
        DefaultSubscription<T> subscription = new DefaultSubscription<>(this, settings, request.codec(), handler, closed -> {
            reading.remove();
            onClose.accept(closed);
        });
        reading.source(subscription::backlog);
        Runnable start = () -> subscription.startUnlessClosed(subscription::start);
        if (provisioning == null) {
            start.run();
            return subscription;
        }
        // inline (errors thrown here) until the instance first provisioned; then in the queue's next batched round, the
        // dead-letter destination once no round waits and the subscription is ready (its publisher waits for it)
        CompletableFuture<Void> started;
        try {
            adapter.provisioner().consumerExpected(spec);
            started = provisioning.submit(destinations, List.of(dlq), start, subscription.ready());
        } catch (RuntimeException e) {
            subscription.failedToStart(e);
            throw e;
        }
        started.whenComplete((ignored, error) -> {
            if (error != null && !(error instanceof io.switchboard.SwitchboardClosedException)) {
                org.slf4j.LoggerFactory.getLogger(Instance.class).warn("{} could not start: {}", subscription,
                        error.getMessage());
            }
            if (error != null) {
                subscription.failedToStart(error);
            }
        });
        return subscription;
    }

    /** Closes the adapter. */
    @Override
    public void close() {
        if (provisioning != null) {
            provisioning.close();
        }
        adapter.close();
    }

    @Override
    public String toString() {
        return "BrokerInstance[" + config + "]";
    }
}
