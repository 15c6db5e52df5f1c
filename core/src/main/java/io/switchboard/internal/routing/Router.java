package io.switchboard.internal.routing;

import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.internal.Instance;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.internal.comparison.ComparisonEngine;
import io.switchboard.internal.comparison.FleetTraffic;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.internal.comparison.TrafficStats;
import io.switchboard.internal.fleet.FleetControl;
import io.switchboard.internal.fleet.FleetSettings;
import io.switchboard.internal.fleet.GateRunner;
import io.switchboard.internal.fleet.LocalFleet;
import io.switchboard.routing.BrokerComparison;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import io.switchboard.routing.Routing;
import io.switchboard.routing.RoutingMode;
import io.switchboard.routing.ShadowReport;
import io.switchboard.spi.BrokerConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import io.switchboard.spi.EventKinds;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing layer of a multi-instance Switchboard: the routes, a {@link RouteBinding} per
 * destination in use, the publishers and subscriptions following them, the promotion gates, and a
 * one-second ticker that rolls the comparison windows, judges the gates and watches migrations
 * drain. Route changes are serialised; the publish path never takes a lock.
 */
public final class Router implements Routing, GateRunner.Host, FleetControl.Routes, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Router.class);

    private final List<Instance> instances;
    private final Map<String, Integer> index = new LinkedHashMap<>();
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    private volatile Route defaultRoute;
    private final Map<String, RouteBinding> bindings = new ConcurrentHashMap<>();
    private final Map<String, GateRunner> gates = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> gateSteps = new ConcurrentHashMap<>();
    private final RouteFollowers followers = new RouteFollowers();
    private final RoutingMeters meters;
    private final ComparisonEngine comparison;
    private final TrafficBook book;
    private final RoutingSettings settings;
    private final ScheduledExecutorService ticker;
    private final Object changes = new Object();
    /** The fleet's control plane, or null when the routes are this process's alone. */
    private final FleetControl fleet;

    /** A router over {@code instances} with the common properties, default route and initial routes. */
    public Router(List<Instance> instances, BrokerConfig common, Route defaultRoute, Map<String, Route> initial, Clock clock) {
        this.instances = List.copyOf(instances);
        Map<String, String> brokers = new LinkedHashMap<>();
        instances.forEach(i -> index.put(i.name(), i.index()));
        instances.forEach(i -> brokers.put(i.name(), i.brokerId()));
        validate("default route", defaultRoute);
        initial.forEach((d, r) -> validate("route of '" + d + "'", r));
        this.defaultRoute = defaultRoute;
        this.routes.putAll(initial);
        this.meters = new RoutingMeters(this.instances, () -> instances.get(0).shared().meters());
        this.book = instances.get(0).shared().traffic();
        this.settings = RoutingSettings.from(common);
        this.comparison = new ComparisonEngine(book, List.copyOf(index.keySet()), brokers, instances.stream().collect(
                java.util.stream.Collectors.toMap(Instance::name, i -> i.adapter().performanceSettings())),
                instances.stream().collect(java.util.stream.Collectors.toMap(Instance::name, Instance::lag)),
                settings.minSamples(), settings.minDifference(), instances.get(0).shared().events(), settings.warmUpSeconds());
        comparison.designs(new ComparisonEngine.Designs() {
            @Override
            public ComparisonReport.Design design(String destination) {
                return Router.this.design(destination);
            }

            @Override
            public boolean keyed(String destination) {
                if (destination != null) {
                    RouteBinding b = bindings.get(destination);
                    return b != null && b.keyed;
                }
                return bindings.values().stream().anyMatch(b -> b.keyed);
            }
        });
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "switchboard-routing");
            t.setDaemon(true);
            return t;
        });
        // book is null when switchboard.comparison.enabled=false
        FleetSettings fleetSettings = FleetSettings.from(common, index.keySet());
        if (fleetSettings == null) {
            this.fleet = null;
            log.info("Routes are local to this process (no switchboard.control.* set): a route change made here reaches no other "
                    + "replica; set switchboard.control.instance to share routes among the application's replicas");
        } else {
            Instance control = instances.stream().filter(i -> i.name().equals(fleetSettings.instance())).findFirst().orElseThrow();
            FleetTraffic remote = new FleetTraffic(book == null ? 60 : book.seconds());
            FleetControl f = new FleetControl(this, control, fleetSettings, remote, gateSteps, clock);
            this.fleet = f;
            comparison.joinFleet(remote, () -> "fleet of " + f.replicas().size() + " replica(s)", "replica " + fleetSettings.replica());
            try {
                f.start();
            } catch (RuntimeException e) {
                f.close();
                throw e;
            }
        }
        ticker.scheduleAtFixedRate(this::tick, 1000 - clock.millis() % 1000 + 5, 1000, TimeUnit.MILLISECONDS);
    }

    /** Exports the weight gauges of bindings made before the registry was bound. */
    public void bindTo(MeterRegistry registry) {
        bindings.forEach((d, b) -> meters.weightGauges(d, b));
        meters.costMeters(book);
    }

    List<Instance> instanceList() {
        return instances;
    }

    RoutingMeters meters() {
        return meters;
    }

    @Override
    public ComparisonEngine comparisonEngine() {
        return comparison;
    }

    int shadowBuffer() {
        return settings.shadowBuffer();
    }

    Duration readyTimeout() {
        return settings.readyTimeout();
    }

    /** The broker comparison: the fleet's when the routes are shared by one. */
    public BrokerComparison comparison() {
        return comparison.judging();
    }

    @Override
    public void gateStep(String destination, AtomicInteger percent) {
        meters.gateStep(destination, percent);
    }

    @Override
    public void gateTransition(String destination, String outcome) {
        meters.gateTransition(destination, outcome);
    }

    @Override
    public Map<String, TrafficStats.Window> windows(String destination, long fromSecond, long nowSecond) {
        return comparison.windows(destination, fromSecond, nowSecond - 1);
    }

    private void validate(String what, Route route) {
        if (route == null) {
            throw new ConfigurationException("The " + what + " is missing; give a Route such as Route.single(\""
                    + instances.get(0).name() + "\")");
        }
        RouteChecks.instances(what, route, index.keySet(), instances);
    }

    /** Refuses, before the fleet hears of it, a route to an instance lacking what a live participant uses. */
    private void checkUse(String destination, Route route) {
        synchronized (changes) {
            RouteBinding b = bindings.get(destination);
            if (b != null) {
                b.check(new RouteState(route, index));
            }
        }
    }

    private RouteBinding binding(String destination) {
        return bindings.computeIfAbsent(destination, d -> {
            RouteBinding b = new RouteBinding(d, new RouteState(route(d), index), settings.shadowGraceMillis());
            meters.weightGauges(d, b);
            return b;
        });
    }

    // ---- publishers and subscriptions ----

    /** A publisher following {@code destination}'s route. */
    public <T> Publisher<T> publisher(String destination, Codec<T> codec, Delivery delivery, Map<String, String> properties,
            Consumer<AutoCloseable> onClose) {
        synchronized (changes) {
            RouteBinding b = binding(destination);
            RoutingPublisher<T> p = new RoutingPublisher<>(this, b, codec, delivery, properties, c -> {
                followers.remove(c);
                onClose.accept(c);
            });
            try {
                p.prepare(b.state());
            } catch (RuntimeException e) {
                p.close();
                throw e;
            }
            b.join(p);
            followers.add(p);
            return p;
        }
    }

    /** A subscription reading every instance {@code request}'s destination route can send to. */
    public <T> Subscription subscribe(SubscriptionRequest<T> request, MessageHandler<T> handler, Consumer<AutoCloseable> onClose) {
        synchronized (changes) {
            RouteBinding b = binding(request.destination());
            RoutingSubscription<T> s = new RoutingSubscription<>(this, b, request, handler, c -> {
                followers.remove(c);
                onClose.accept(c);
            });
            s.start();
            b.join(s);
            followers.add(s);
            return s;
        }
    }

    // ---- Routing ----

    @Override
    public Set<String> instances() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(index.keySet()));
    }

    /**
     * {@return how {@code destination}'s route assigns its traffic now; for null (a report of every destination), the
     * design its routes share, or {@link ComparisonReport.Design#MIXED}}
     */
    ComparisonReport.Design design(String destination) {
        if (destination != null) {
            return design(route(destination));
        }
        Set<ComparisonReport.Design> all = new LinkedHashSet<>();
        all.add(design(defaultRoute));
        routes.values().forEach(r -> all.add(design(r)));
        return all.size() == 1 ? all.iterator().next() : ComparisonReport.Design.MIXED;
    }

    static ComparisonReport.Design design(Route route) {
        return switch (route.mode()) {
            case SPLIT -> route.isPerMessage() ? ComparisonReport.Design.SPLIT_PER_MESSAGE : ComparisonReport.Design.SPLIT_BY_KEY;
            case MIRROR -> ComparisonReport.Design.MIRROR;
            case FAILOVER -> ComparisonReport.Design.FAILOVER;
            case MIGRATE -> ComparisonReport.Design.MIGRATE;
            case SINGLE -> ComparisonReport.Design.SINGLE;
        };
    }

    @Override
    public Route route(String destination) {
        Route r = routes.get(destination);
        return r != null ? r : defaultRoute;
    }

    @Override
    public Route defaultRoute() {
        return defaultRoute;
    }

    @Override
    public Map<String, Route> routes() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(routes));
    }

    @Override
    public void update(String destination, Route route) {
        validate("route of '" + destination + "'", route);
        checkUse(destination, route);
        if (fleet != null) {
            fleet.cancelGate(destination, "replaced by route " + route + " set by the application");
            fleet.writeRoute(destination, route);
            return;
        }
        GateRunner gate = gates.get(destination);
        if (gate != null) {
            gate.cancel("replaced by route " + route + " set by the application");
        }
        apply(destination, route, "set by the application");
    }

    @Override
    public void updateLocal(String destination, Route route) {
        validate("route of '" + destination + "'", route);
        apply(destination, route, fleet == null ? "set by the application" : "set on this replica only");
    }

    /** A route change made by a promotion gate. */
    @Override
    public void applyFromGate(String destination, Route route, String why) {
        apply(destination, route, why);
    }

    /** A route change of the fleet's, from the control channel. */
    @Override
    public void applyRoute(String destination, Route route, String why) {
        validate("route of '" + destination + "'", route);
        apply(destination, route, why);
    }

    @Override
    public io.switchboard.routing.Fleet fleet() {
        return fleet != null ? fleet : LocalFleet.INSTANCE;
    }

    private void apply(String destination, Route route, String why) {
        synchronized (changes) {
            Route before = route(destination);
            routes.put(destination, route);
            RouteBinding b = bindings.get(destination);
            if (b != null) {
                try {
                    b.change(new RouteState(route, index));
                } catch (RuntimeException e) {
                    if (before != null) {
                        routes.put(destination, before);
                    }
                    throw e;
                }
            }
            meters.changed(destination, route.mode().name().toLowerCase(Locale.ROOT));
            instances.get(0).shared().events().everywhere(EventKinds.ROUTE_CHANGED, destination, before + " -> " + route + " (" + why + ")");
            log.info("Route of '{}' changed from {} to {} ({})", destination, before, route, why);
        }
    }

    @Override
    public void updateDefault(Route route) {
        validate("default route", route);
        synchronized (changes) {
            RouteState next = new RouteState(route, index);
            bindings.values().stream().filter(b -> !routes.containsKey(b.destination)).forEach(b -> b.check(next));
        }
        if (fleet != null) {
            fleet.writeDefault(route);
            return;
        }
        applyDefault(route, "set by the application");
    }

    /** Changes the default route here. */
    @Override
    public void applyDefault(Route route, String why) {
        validate("default route", route);
        synchronized (changes) {
            Route before = defaultRoute;
            RouteState next = new RouteState(route, index);
            List<RouteBinding> following = new ArrayList<>();
            for (RouteBinding b : bindings.values()) {
                if (!routes.containsKey(b.destination)) {
                    following.add(b);
                }
            }
            for (RouteBinding b : following) {
                b.change(next);
                meters.changed(b.destination, route.mode().name().toLowerCase(Locale.ROOT));
            }
            defaultRoute = route;
            instances.get(0).shared().events().everywhere(EventKinds.ROUTE_CHANGED, "default route", before + " -> " + route + " ("
                    + why + ")");
            log.info("Default route changed from {} to {} ({})", before, route, why);
        }
    }

    @Override
    public Promotion promote(String destination, PromotionGate gate) {
        for (String name : List.of(gate.source(), gate.target())) {
            if (!index.containsKey(name)) {
                throw new ConfigurationException("Promotion gate " + gate + " names broker instance '" + name
                        + "', which this Switchboard does not have (instances: " + index.keySet() + ")");
            }
        }
        comparison.requireEnabled("a promotion gate");
        checkUse(destination, Route.single(gate.target())); // the gate ends there: refuse it now, not at a step
        if (fleet != null) {
            return fleet.promote(destination, gate);
        }
        GateRunner previous = gates.get(destination);
        if (previous != null) {
            previous.cancel("replaced by a new promotion gate");
        }
        AtomicInteger percent = gateSteps.computeIfAbsent(destination, d -> {
            AtomicInteger p = new AtomicInteger();
            meters.gateStep(d, p);
            return p;
        });
        GateRunner runner = new GateRunner(this, destination, gate, percent);
        gates.put(destination, runner);
        log.info("Promotion of '{}' started: {}", destination, gate);
        runner.start(book.nowSecond());
        return runner;
    }

    @Override
    public Optional<Promotion> promotion(String destination) {
        if (fleet != null) {
            return fleet.promotion(destination);
        }
        return Optional.ofNullable(gates.get(destination));
    }

    @Override
    public ShadowReport shadowReport(String destination) {
        Route r = route(destination);
        RouteBinding b = bindings.get(destination);
        long[] c = b == null ? new long[10] : b.shadowCheck.counts();
        String primary = r.mode() == RoutingMode.MIRROR ? r.primary() : null;
        String shadow = r.mode() == RoutingMode.MIRROR ? r.shadow() : null;
        return new ShadowReport(destination, primary, shadow, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
    }

    @Override
    public CompletionStage<Void> drained(String destination) {
        CompletableFuture<Void> here = followers.drained(destination);
        return fleet == null ? here : here.thenCompose(v -> fleet.fleetDrained(destination));
    }

    // ---- the ticker ----

    private void tick() {
        try {
            instances.get(0).shared().resilience().checkBreakers();
            followers.retryMissingPrimaries();
            if (book == null) {
                followers.checkDrains();
                if (fleet != null) {
                    fleet.tick(System.currentTimeMillis() / 1000, followers.draining());
                }
                return;
            }
            // one reading of the clock for the whole tick: were the second read again after the roll, a
            // second boundary between the two would make the heartbeat share a second not rolled yet
            // (empty), and the next heartbeat starts after it, so that second's traffic never reached
            // the other replicas
            long now = book.nowSecond();
            book.roll(now - 1);
            for (GateRunner g : gates.values()) {
                g.tick(now);
            }
            followers.checkDrains();
            if (fleet != null) {
                fleet.tick(now, followers.draining());
            }
        } catch (RuntimeException e) {
            log.warn("Routing tick failed", e);
        }
    }

    /** Stops the ticker, the gates and the fleet's control plane. */
    @Override
    public void close() {
        ticker.shutdownNow();
        if (fleet != null) {
            fleet.close();
        }
        gates.values().forEach(g -> g.cancel("Switchboard closed"));
    }
}
