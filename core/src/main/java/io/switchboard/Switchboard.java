package io.switchboard;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.internal.AdapterLoader;
import io.switchboard.internal.Instance;
import io.switchboard.internal.Shared;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.internal.metrics.RequestRecorder;
import io.switchboard.internal.reply.DefaultRequester;
import io.switchboard.internal.reply.ReplyTransport;
import io.switchboard.internal.reply.ReplyingSubscription;
import io.switchboard.internal.reply.Responder;
import io.switchboard.internal.routing.Router;
import io.switchboard.routing.BrokerComparison;
import io.switchboard.routing.Route;
import io.switchboard.routing.Routing;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.IdempotencyStore;
import io.switchboard.spi.Provisioner;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: one or more named broker instances, found by adapter id through
 * {@link java.util.ServiceLoader}, and everything made from them. Owns and closes every publisher
 * and subscription it created. Thread-safe.
 *
 * <pre>{@code
 * try (Switchboard sb = Switchboard.builder().broker("memory").build()) {
 *     Subscription s = sb.subscriber("orders", Codec.utf8()).group("billing")
 *             .subscribe((message, context) -> System.out.println(message.payload()));
 *     sb.publisher("orders", Codec.utf8()).build().publish("hello");
 * }
 * }</pre>
 *
 * <p>Several brokers behind the same calls, routed per destination ({@link Route}) and changeable
 * at run time through {@link #routing()}; compared on the application's own traffic through
 * {@link #comparison()}:
 *
 * <pre>{@code
 * Switchboard sb = Switchboard.builder()
 *         .instance("a", "kafka", Map.of("kafka.bootstrap.servers", "localhost:9092"))
 *         .instance("b", "rabbitmq", Map.of("rabbitmq.uri", "amqp://localhost"))
 *         .route("orders", Route.split(Map.of("a", 90, "b", 10)))
 *         .build();
 * }</pre>
 *
 * <p>Core properties (adapter properties sit beside them): {@code switchboard.source} (CloudEvents source, default {@code switchboard}),
 * {@code switchboard.type} (CloudEvents type, default {@code message}), {@code switchboard.envelope}
 * ({@code cloudevents}, the default, lean; {@code cloudevents-full}; {@code compact}: see {@link Envelope}),
 * {@code switchboard.auto-provision} (default true; {@code switchboard.provisioning}: {@code background} or {@code inline}),
 * {@code switchboard.partitions} (partitions of auto-provisioned destinations, default the adapter's
 * {@link io.switchboard.spi.Capabilities#defaultPartitions()}: 4, except 1 on RabbitMQ),
 * {@code switchboard.cluster-check} ({@code warn}, the default, or {@code refuse}: what an adapter does
 * with a setting that cannot keep acknowledged messages on the cluster it finds, see
 * {@link io.switchboard.spi.ClusterCheck}),
 * {@code switchboard.metrics.slo} (extra SLO buckets on latency timers),
 * {@code switchboard.resilience.*} and {@code switchboard.destination.<name>.resilience.*}
 * (Resilience4j policies on publishing; none unless configured). Routing properties (common
 * properties of a multi-instance Switchboard): {@code switchboard.comparison.enabled} (true; false
 * drops the comparison's per-message recording, and with it comparison reports and promotion gates),
 * {@code switchboard.comparison.window} (60s),
 * {@code switchboard.comparison.min-samples} (200), {@code switchboard.comparison.min-difference}
 * (0.10), {@code switchboard.routing.shadow-buffer} (10000 messages),
 * {@code switchboard.routing.shadow-grace} (5s), {@code switchboard.routing.ready-timeout} (30s).
 *
 * <p>Metrics: give a registry to the builder, or bind one with {@link #bindTo(MeterRegistry)}
 * before creating publishers and subscriptions; without one nothing is recorded. Tracing: give an
 * {@link ObservationRegistry} to the builder.
 */
public final class Switchboard implements AutoCloseable, MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(Switchboard.class);

    private final Map<String, Instance> instances;
    private final Instance first;
    private final Shared shared;
    private final Router router;
    private final OwnedResources owned = new OwnedResources();

    Switchboard(Map<String, Instance> instances, Shared shared, Router router) {
        this.instances = Collections.unmodifiableMap(instances);
        this.first = instances.values().iterator().next();
        this.shared = shared;
        this.router = router;
    }

    /**
     * Records metrics in {@code registry} for every publisher and subscription created from now
     * on, and exports Resilience4j events. A second registry is ignored (compose registries with
     * a {@code CompositeMeterRegistry} instead).
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        if (shared.meters() == registry) {
            return; // bound already (Spring Boot binds every MeterBinder bean again)
        }
        if (!shared.bindTo(registry)) {
            log.warn("Switchboard '{}' is already bound to a meter registry; ignoring another one", first.name());
        } else if (router != null) {
            router.bindTo(registry);
        }
    }

    /** {@return the circuit breakers guarding publishing; their event publishers take typed listeners} */
    public CircuitBreakerRegistry circuitBreakers() {
        return shared.resilience().circuitBreakers();
    }

    /** {@return the publish retries; their event publishers take typed listeners} */
    public RetryRegistry retries() {
        return shared.resilience().retries();
    }

    /**
     * Starts a builder.
     *
     * @return a builder without instances or properties
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@return a Switchboard on the given adapter with default properties}
     *
     * @param brokerId the adapter id, such as {@code kafka}
     */
    public static Switchboard create(String brokerId) {
        return builder().broker(brokerId).build();
    }

    /** {@return the adapter ids on the classpath} */
    public static Set<String> availableBrokers() {
        return AdapterLoader.availableIds();
    }

    /**
     * Starts building a publisher for a destination; it follows the destination's route.
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param codec the codec of its payloads
     * @return a builder of the publisher
     */
    public <T> PublisherBuilder<T> publisher(String destination, Codec<T> codec) {
        ensureOpen();
        return new PublisherBuilder<>(this, destination, codec);
    }

    /**
     * Starts building a subscription to a destination; it reads every instance the route can send to.
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param codec the codec of its payloads
     * @return a builder of the subscription
     */
    public <T> SubscriberBuilder<T> subscriber(String destination, Codec<T> codec) {
        ensureOpen();
        return new SubscriberBuilder<>(this, destination, codec);
    }

    /**
     * Starts building a requester: it publishes requests to {@code destination} and completes each with the reply a
     * {@linkplain SubscriberBuilder#subscribeReplying replying subscription} sends back; see {@link Requester}.
     *
     * @param <Q> the request's payload type
     * @param <R> the reply's payload type
     * @param destination the destination requests go to
     * @param requestCodec the codec of the requests' payloads
     * @param replyCodec the codec of the replies' payloads
     * @return a builder of the requester
     */
    public <Q, R> RequesterBuilder<Q, R> requester(String destination, Codec<Q> requestCodec, Codec<R> replyCodec) {
        ensureOpen();
        return new RequesterBuilder<>(this, destination, requestCodec, replyCodec);
    }

    <Q, R> Requester<Q, R> newRequester(String destination, Codec<Q> requestCodec, Codec<R> replyCodec, String replyTo,
            Duration timeout, Delivery delivery, Map<String, String> properties) {
        ensureOpen();
        return own(DefaultRequester.start(replies, destination, requestCodec, replyCodec, replyTo, timeout, delivery,
                properties, this::disown));
    }

    <T, R> Subscription newReplyingSubscription(SubscriptionRequest<T> request, Codec<R> replyCodec,
            ReplyingHandler<T, R> handler) {
        Responder<T, R> responder = new Responder<>(handler, replyCodec, replies, request.destination());
        return new ReplyingSubscription(newSubscription(request, responder), responder);
    }

    /** Request/reply's view of this Switchboard. */
    private final ReplyTransport replies = new ReplyTransport() {
        @Override
        public <T> Publisher<T> publisher(String destination, Codec<T> codec, Delivery delivery,
                Map<String, String> properties) {
            return newPublisher(destination, codec, delivery, properties);
        }

        @Override
        public <T> Publisher<T> publisherOn(String instance, String destination, Codec<T> codec) {
            Instance i = instances.get(instance);
            if (i == null) {
                return null;
            }
            ensureOpen();
            return own(i.publisher(destination, codec, Delivery.AT_LEAST_ONCE, Map.of(), Switchboard.this::disown));
        }

        @Override
        public <T> Subscription subscribeOn(String instance, SubscriptionRequest<T> request, MessageHandler<T> handler) {
            ensureOpen();
            return own(instances.get(instance).subscribe(request, handler, Switchboard.this::disown));
        }

        @Override
        public Set<String> instances() {
            return instances.keySet();
        }

        @Override
        public String brokerIdOf(String instance) {
            return instances.get(instance).brokerId();
        }

        @Override
        public MeterRegistry meters() {
            return shared.meters();
        }

        @Override
        public RequestRecorder comparison(String instance, String destination) {
            TrafficBook book = shared.traffic();
            return book == null ? null : book.stats(instance, brokerIdOf(instance), destination);
        }
    };

    <T> Publisher<T> newPublisher(String destination, Codec<T> codec, Delivery delivery, Map<String, String> properties) {
        ensureOpen();
        return own(router == null ? first.publisher(destination, codec, delivery, properties, this::disown)
                : router.publisher(destination, codec, delivery, properties, this::disown));
    }

    <T> Subscription newSubscription(SubscriptionRequest<T> request, MessageHandler<T> handler) {
        ensureOpen();
        Objects.requireNonNull(handler, "handler");
        if (router != null && handler instanceof io.switchboard.internal.BatchingHandler) {
            throw new UnsupportedCapabilityException("A batch subscription to '" + request.destination() + "' needs a "
                    + "Switchboard of one broker instance; this one routes between " + instances.keySet() + ". Subscribe "
                    + "with subscribe(MessageHandler) here, or batch on a Switchboard of the one instance");
        }
        return own(router == null ? first.subscribe(request, handler, this::disown)
                : router.subscribe(request, handler, this::disown));
    }

    /**
     * Creates and deletes destinations on the first (or only) instance; see {@link #instance(String)} for others.
     *
     * @return the provisioner of the first instance
     */
    public Provisioner provisioning() {
        ensureOpen();
        return first.provisioning();
    }

    /** {@return the adapter id of the first (or only) instance, e.g. {@code kafka}} */
    public String brokerId() {
        return first.brokerId();
    }

    /** {@return the name of the first (or only) instance (defaults to the adapter id)} */
    public String instanceName() {
        return first.name();
    }

    /** {@return what the first (or only) instance's broker can do} */
    public Capabilities capabilities() {
        return first.capabilities();
    }

    /** {@return the first (or only) instance's configuration, secrets masked in its {@code toString()}} */
    public BrokerConfig config() {
        return first.config();
    }

    /** {@return the names of the broker instances, in declaration order} */
    public Set<String> instances() {
        return new LinkedHashSet<>(instances.keySet());
    }

    /**
     * {@return the broker instance named {@code name}}
     *
     * @param name the instance's name
     * @throws ConfigurationException naming the instances there are
     */
    public BrokerInstance instance(String name) {
        Instance i = instances.get(name);
        if (i == null) {
            throw new ConfigurationException("No broker instance '" + name + "' in this Switchboard; instances: "
                    + instances.keySet());
        }
        return i;
    }

    /**
     * {@return the routes, changeable at run time}
     *
     * @throws ConfigurationException on a one-instance Switchboard, which has nothing to route between
     */
    public Routing routing() {
        return requireRouter("route between");
    }

    /**
     * {@return the live comparison of the broker instances on this application's traffic}
     *
     * @throws ConfigurationException on a one-instance Switchboard, which has nothing to compare
     */
    public BrokerComparison comparison() {
        return requireRouter("compare").comparison();
    }

    private Router requireRouter(String what) {
        if (router == null) {
            throw new ConfigurationException("Switchboard '" + first.name() + "' has one broker instance, so there is nothing to "
                    + what + "; build it with instance(name, broker, properties) once per broker");
        }
        return router;
    }

    /** {@return the registry meters are recorded in, or null when metrics are off} */
    public MeterRegistry meterRegistry() {
        return shared.meters();
    }

    <C extends AutoCloseable> C own(C closeable) {
        return owned.own(closeable);
    }

    void disown(AutoCloseable closeable) {
        owned.disown(closeable);
    }

    void ensureOpen() {
        if (owned.isClosed()) {
            throw new SwitchboardClosedException("Switchboard for broker instance(s) " + instances.keySet()
                    + " is closed; build a new one with Switchboard.builder()");
        }
    }

    /** Closes subscriptions (draining them), then publishers (flushing), then the adapters. Idempotent. */
    @Override
    public void close() {
        if (!owned.markClosed()) {
            return;
        }
        if (router != null) {
            router.close();
        }
        owned.closeAll();
        shared.resilience().close();
        io.switchboard.internal.comparison.GcPauses.unregister(shared.events());
        SwitchboardAssembly.closeQuietly(instances.values());
    }

    @Override
    public String toString() {
        return "Switchboard" + instances.values().stream().map(i -> i.config().toString()).toList();
    }

    /**
     * Builds a {@link Switchboard}: either one broker with {@link #broker(String)}, or several named
     * instances with {@link #instance(String, String, Map)} and their routes.
     */
    public static final class Builder {
        String brokerId;
        String instanceName;
        final Map<String, String> properties = new LinkedHashMap<>();
        final Map<String, SwitchboardAssembly.Definition> definitions = new LinkedHashMap<>();
        final Map<String, Route> routes = new LinkedHashMap<>();
        Route defaultRoute;
        MeterRegistry meterRegistry;
        ObservationRegistry observationRegistry;
        IdempotencyStore idempotencyStore;
        Clock clock = Clock.systemUTC();

        private Builder() {}

        /**
         * The adapter id of a one-broker Switchboard: {@code memory}, {@code kafka}, {@code rabbitmq}, {@code rocketmq}, ...
         *
         * @param brokerId the adapter id
         * @return this builder
         */
        public Builder broker(String brokerId) {
            this.brokerId = brokerId;
            return this;
        }

        /**
         * The instance name of a one-broker Switchboard, used in metrics and errors; defaults to the adapter id.
         *
         * @param name the instance's name
         * @return this builder
         */
        public Builder instanceName(String name) {
            this.instanceName = name;
            return this;
        }

        /**
         * Adds a named broker instance with its own properties (connection, resilience, ...). With
         * instances, {@link #property} sets properties common to all of them (an instance's own win).
         *
         * @param name the instance's name: its meters' {@code instance} tag
         * @param brokerId the adapter id, such as {@code kafka}
         * @param instanceProperties the instance's own properties
         * @return this builder
         * @throws ConfigurationException when the name is malformed or used twice
         */
        public Builder instance(String name, String brokerId, Map<String, String> instanceProperties) {
            definitions.put(name, SwitchboardAssembly.definition(name, brokerId, instanceProperties, definitions.keySet()));
            return this;
        }

        /**
         * The route of {@code destination}; destinations without one follow the default route.
         *
         * @param destination the destination's name
         * @param route its route
         * @return this builder
         */
        public Builder route(String destination, Route route) {
            routes.put(Objects.requireNonNull(destination, "destination"), Objects.requireNonNull(route, "route"));
            return this;
        }

        /**
         * The route of destinations without their own; default: single(first instance).
         *
         * @param route the default route
         * @return this builder
         */
        public Builder defaultRoute(Route route) {
            this.defaultRoute = Objects.requireNonNull(route, "route");
            return this;
        }

        /**
         * One property (with instances: common to all of them).
         *
         * @param key the property name
         * @param value its value
         * @return this builder
         */
        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
            return this;
        }

        /**
         * Several properties.
         *
         * @param values the properties, by name
         * @return this builder
         */
        public Builder properties(Map<String, String> values) {
            values.forEach(this::property);
            return this;
        }

        /**
         * Records metrics in this registry; without one nothing is recorded.
         *
         * @param registry the meter registry
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /**
         * Observes publishing and handling (tracing with a tracer's handlers); default none.
         *
         * @param registry the observation registry
         * @return this builder
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observationRegistry = registry;
            return this;
        }

        /**
         * The store exactly-once subscriptions and migrations deduplicate with; default: in memory, 100,000 ids per group.
         *
         * @param store the store
         * @return this builder
         */
        public Builder idempotencyStore(IdempotencyStore store) {
            this.idempotencyStore = store;
            return this;
        }

        /** The clock of the comparison windows (tests); default the system clock. */
        Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Finds the adapters and creates them.
         *
         * @return the Switchboard, ready for publishers and subscribers
         * @throws UnknownBrokerException when no adapter has an id, listing the ids on the classpath
         * @throws ConfigurationException when a property or a route is malformed
         */
        public Switchboard build() {
            return SwitchboardAssembly.build(this);
        }
    }
}
