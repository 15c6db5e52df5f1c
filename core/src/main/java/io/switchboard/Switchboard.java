package io.switchboard;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.internal.Telemetry;
import io.switchboard.internal.metrics.MetricsSettings;
import io.switchboard.internal.resilience.ResilienceRegistries;
import io.switchboard.internal.AdapterLoader;
import io.switchboard.internal.InMemoryIdempotencyStore;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.IdempotencyStore;
import io.switchboard.spi.Provisioner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: one broker instance, found by adapter id through {@link java.util.ServiceLoader},
 * and everything made from it. Owns and closes every publisher and subscription it created.
 * Thread-safe.
 *
 * <pre>{@code
 * try (Switchboard sb = Switchboard.builder().broker("memory").build()) {
 *     Subscription s = sb.subscriber("orders", Codec.utf8()).group("billing")
 *             .subscribe((message, context) -> System.out.println(message.payload()));
 *     sb.publisher("orders", Codec.utf8()).build().publish("hello");
 * }
 * }</pre>
 *
 * <p>Core properties (adapter properties sit beside them):
 * {@code switchboard.source} (CloudEvents source, default {@code switchboard}),
 * {@code switchboard.type} (CloudEvents type, default {@code io.switchboard.message}),
 * {@code switchboard.auto-provision} (create destinations on first use, default true),
 * {@code switchboard.partitions} (partitions of auto-provisioned destinations, default 4),
 * {@code switchboard.metrics.slo} (extra SLO buckets on latency timers),
 * {@code switchboard.resilience.*} and {@code switchboard.destination.<name>.resilience.*}
 * (Resilience4j policies on publishing; none unless configured).
 *
 * <p>Metrics: give a registry to the builder, or bind one with {@link #bindTo(MeterRegistry)}
 * before creating publishers and subscriptions; without one nothing is recorded. Tracing: give an
 * {@link ObservationRegistry} to the builder.
 */
public final class Switchboard implements AutoCloseable, MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(Switchboard.class);

    private final BrokerAdapter adapter;
    private final BrokerConfig config;
    private volatile MeterRegistry meterRegistry;
    private final ObservationRegistry observationRegistry;
    private final MetricsSettings metricsSettings;
    private final ResilienceRegistries resilience = new ResilienceRegistries();
    private final IdempotencyStore idempotencyStore;
    private final List<AutoCloseable> owned = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private Switchboard(BrokerAdapter adapter, BrokerConfig config, MeterRegistry meterRegistry,
            ObservationRegistry observationRegistry, IdempotencyStore store) {
        this.adapter = adapter;
        this.config = config;
        this.observationRegistry = observationRegistry;
        this.metricsSettings = MetricsSettings.from(config);
        this.idempotencyStore = store;
        if (meterRegistry != null) {
            bindTo(meterRegistry);
        }
    }

    /**
     * Records metrics in {@code registry} for every publisher and subscription created from now
     * on, and exports Resilience4j events. A second registry is ignored (compose registries with
     * a {@code CompositeMeterRegistry} instead).
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (meterRegistry == null) {
            meterRegistry = registry;
            resilience.bindTo(registry);
        } else if (meterRegistry != registry) {
            log.warn("Switchboard '{}' is already bound to a meter registry; ignoring another one", config.instanceName());
        }
    }

    /** The circuit breakers guarding publishing; their event publishers take typed listeners. */
    public CircuitBreakerRegistry circuitBreakers() {
        return resilience.circuitBreakers();
    }

    /** The publish retries; their event publishers take typed listeners. */
    public RetryRegistry retries() {
        return resilience.retries();
    }

    ResilienceRegistries resilience() {
        return resilience;
    }

    Telemetry telemetry() {
        MeterRegistry m = meterRegistry;
        if (m == null && (observationRegistry == null || observationRegistry.isNoop())) {
            return Telemetry.NONE;
        }
        return new Telemetry(m, observationRegistry, metricsSettings, adapter.id(), config.instanceName());
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A Switchboard on the given adapter with default properties. */
    public static Switchboard create(String brokerId) {
        return builder().broker(brokerId).build();
    }

    /** The adapter ids on the classpath. */
    public static Set<String> availableBrokers() {
        return AdapterLoader.availableIds();
    }

    /** Starts building a publisher for a destination. */
    public <T> PublisherBuilder<T> publisher(String destination, Codec<T> codec) {
        ensureOpen();
        return new PublisherBuilder<>(this, destination, codec);
    }

    /** Starts building a subscription to a destination. */
    public <T> SubscriberBuilder<T> subscriber(String destination, Codec<T> codec) {
        ensureOpen();
        return new SubscriberBuilder<>(this, destination, codec);
    }

    /** Creates and deletes destinations. */
    public Provisioner provisioning() {
        ensureOpen();
        return adapter.provisioner();
    }

    /** The adapter id, e.g. {@code kafka}. */
    public String brokerId() {
        return adapter.id();
    }

    /** The broker instance name (defaults to the adapter id). */
    public String instanceName() {
        return config.instanceName();
    }

    /** What the broker can do. */
    public Capabilities capabilities() {
        return adapter.capabilities();
    }

    /** The configuration, secrets masked in its {@code toString()}. */
    public BrokerConfig config() {
        return config;
    }

    /** The registry meters are recorded in, or null when metrics are off. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    BrokerAdapter adapter() {
        return adapter;
    }

    IdempotencyStore idempotencyStore() {
        return idempotencyStore;
    }

    <C extends AutoCloseable> C own(C closeable) {
        owned.add(closeable);
        return closeable;
    }

    void disown(AutoCloseable closeable) {
        owned.remove(closeable);
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new SwitchboardClosedException("Switchboard for broker instance '" + config.instanceName()
                    + "' is closed; build a new one with Switchboard.builder()");
        }
    }

    /** Closes subscriptions (draining them), then publishers (flushing), then the adapter. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<AutoCloseable> subscriptionsFirst = new ArrayList<>();
        owned.stream().filter(c -> c instanceof Subscription).forEach(subscriptionsFirst::add);
        owned.stream().filter(c -> !(c instanceof Subscription)).forEach(subscriptionsFirst::add);
        for (AutoCloseable c : subscriptionsFirst) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("Closing {} failed", c, e);
            }
        }
        owned.clear();
        resilience.close();
        adapter.close();
    }

    @Override
    public String toString() {
        return "Switchboard[" + config + "]";
    }

    /** Builds a {@link Switchboard}. */
    public static final class Builder {
        private String brokerId;
        private String instanceName;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private MeterRegistry meterRegistry;
        private ObservationRegistry observationRegistry;
        private IdempotencyStore idempotencyStore;

        private Builder() {}

        /** The adapter id: {@code memory}, {@code kafka}, {@code rabbitmq}, {@code rocketmq}, ... */
        public Builder broker(String brokerId) {
            this.brokerId = brokerId;
            return this;
        }

        /** The broker instance name used in metrics and errors; defaults to the adapter id. */
        public Builder instanceName(String name) {
            this.instanceName = name;
            return this;
        }

        /** One property. */
        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
            return this;
        }

        /** Several properties. */
        public Builder properties(Map<String, String> values) {
            values.forEach(this::property);
            return this;
        }

        /** Records metrics in this registry; without one nothing is recorded. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /** Observes publishing and handling (tracing with a tracer's handlers); default none. */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observationRegistry = registry;
            return this;
        }

        /** The store exactly-once subscriptions deduplicate with; default: in memory, 100,000 ids per group. */
        public Builder idempotencyStore(IdempotencyStore store) {
            this.idempotencyStore = store;
            return this;
        }

        /**
         * Finds the adapter and creates it.
         *
         * @throws UnknownBrokerException when no adapter has the id, listing the ids on the classpath
         * @throws ConfigurationException when a property is malformed
         */
        public Switchboard build() {
            if (brokerId == null || brokerId.isBlank()) {
                throw new ConfigurationException("No broker chosen: call broker(id) with one of " + AdapterLoader.availableIds());
            }
            BrokerConfig config = new BrokerConfig(instanceName == null ? brokerId : instanceName, brokerId, properties);
            BrokerAdapter adapter = AdapterLoader.find(brokerId).create(config);
            IdempotencyStore store = idempotencyStore != null ? idempotencyStore : new InMemoryIdempotencyStore(100_000);
            log.debug("Switchboard started on {}", config);
            return new Switchboard(adapter, config, meterRegistry, observationRegistry, store);
        }
    }
}
