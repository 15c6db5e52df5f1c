package io.switchboard.internal.fleet;

import io.switchboard.ConfigurationException;
import io.switchboard.SwitchboardException;
import io.switchboard.internal.Instance;
import io.switchboard.internal.comparison.ComparisonEngine;
import io.switchboard.internal.comparison.FleetTraffic;
import io.switchboard.internal.comparison.TrafficStats;
import io.switchboard.routing.Fleet;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.Leadership;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet control plane of one replica: route records on a durable log of the control
 * instance's broker ({@link ControlLog}), heartbeats and traffic figures on a broadcast bus
 * ({@link FleetBus}), and the promotion gates, driven by the one replica elected leader with the
 * broker's own primitive ({@link Leadership}). No consensus protocol of its own: the log orders
 * writes per key, versions and a fixed tie-break ({@link FleetRecord#supersedes}) make every
 * replica end on the same record, and only the leader drives gates.
 *
 * <p>Threads: log records and gate driving run on one worker thread ({@code switchboard-fleet});
 * a write made by the application is stored on the log and then applied on the caller's thread.
 * Merges are serialised on this object.
 */
public final class FleetControl implements Fleet, GateRunner.Host, AutoCloseable {

    /**
     * What the fleet's control needs of the replica's router ({@code io.switchboard.internal.routing.Router}
     * implements it), so that the fleet does not depend on the routing package.
     */
    public interface Routes {
        /** Applies the default route read from the route log. */
        void applyDefault(Route route, String why);

        /** Applies a destination's route read from the route log. */
        void applyRoute(String destination, Route route, String why);

        /** Registers the gauge of a promotion target's percentage. */
        void gateStep(String destination, AtomicInteger percent);

        /** Counts a promotion gate's step, rollback, completion or cancel. */
        void gateTransition(String destination, String outcome);

        /** The broker comparison whose windows judge the gates. */
        ComparisonEngine comparisonEngine();
    }

    private static final Logger log = LoggerFactory.getLogger(FleetControl.class);

    private final Routes router;
    private final Instance control;
    private final FleetSettings settings;
    private final Clock clock;
    private final ControlLog routeLog;
    private final Leadership leadership;
    private final FleetBus bus;
    private final ExecutorService worker;
    private final Map<String, FleetRecord> applied = new ConcurrentHashMap<>();
    private final Map<String, FleetPromotion> promotions = new ConcurrentHashMap<>();
    private final Map<String, GateRunner> driving = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> gatePercents;
    private volatile boolean leader;
    private volatile boolean caughtUp;
    private volatile String degraded;
    private volatile long lastRefreshMillis;

    public FleetControl(Routes router, Instance control, FleetSettings settings, FleetTraffic traffic, Map<String, AtomicInteger> gatePercents,
            Clock clock) {
        this.router = router;
        this.control = control;
        this.settings = settings;
        this.clock = clock;
        this.gatePercents = gatePercents;
        ControlSupport support = control.adapter().control().orElseThrow(() -> new ConfigurationException(
                "Property 'switchboard.control.instance' names instance '" + control.name() + "' (" + control.brokerId()
                        + "), whose adapter cannot carry the control channel; name an instance on kafka, rabbitmq or rocketmq"));
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "switchboard-fleet");
            t.setDaemon(true);
            return t;
        });
        this.routeLog = support.openLog(settings.logName());
        this.bus = new FleetBus(control, settings, traffic, clock);
        this.leadership = support.campaign(settings.leaderName(), new Leadership.Listener() {
            @Override
            public void elected() {
                leader = true;
                log.info("Replica '{}' now leads fleet '{}': it drives the fleet's promotion gates", settings.replica(), settings.fleet());
                worker.execute(FleetControl.this::driveGates);
            }

            @Override
            public void revoked() {
                leader = false;
                driving.clear();
                log.info("Replica '{}' no longer leads fleet '{}'", settings.replica(), settings.fleet());
            }
        });
    }

    /** Reads the log up to its end (within the startup timeout), then starts the bus. */
    public void start() {
        var caught = routeLog.follow((key, value) -> worker.execute(() -> onRecord(key, value))).toCompletableFuture();
        try {
            caught.get(settings.startupTimeout().toMillis(), TimeUnit.MILLISECONDS);
            worker.submit(() -> { }).get(settings.startupTimeout().toMillis(), TimeUnit.MILLISECONDS);
            caughtUp = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while reading the fleet's routes", e);
        } catch (ExecutionException | TimeoutException e) {
            degraded = "cannot read the fleet's routes from instance '" + control.name() + "' (" + control.brokerId() + ") within "
                    + settings.startupTimeout() + ": " + (e instanceof ExecutionException ? e.getCause() : e)
                    + "; this replica starts on its configured routes and catches up when the control instance is reachable";
            log.warn("Fleet '{}': {}", settings.fleet(), degraded);
            caught.whenComplete((v, error) -> {
                if (error == null) {
                    caughtUp = true;
                }
            });
        }
        bus.start();
        log.info("Routes shared with fleet '{}' through instance '{}' ({}): replica '{}', {} route record(s) read, route version {}",
                settings.fleet(), control.name(), control.brokerId(), settings.replica(), applied.size(), routeVersion());
    }

    // ---- records ----

    private void onRecord(String key, byte[] value) {
        FleetRecord record = FleetRecord.decode(value);
        if (record == null) {
            log.warn("Fleet '{}': ignoring a record under key '{}' of the route log that is not a route record ({} bytes)",
                    settings.fleet(), key, value.length);
            return;
        }
        merge(key, record);
    }

    /** Applies {@code record} when it supersedes what this replica has for {@code key}. */
    private synchronized void merge(String key, FleetRecord record) {
        FleetRecord previous = applied.get(key);
        if (record.sameStamp(previous) || !record.supersedes(previous)) {
            return;
        }
        applied.put(key, record);
        String why = "fleet '" + settings.fleet() + "' version " + record.version() + " by replica '" + record.writer() + "'";
        try {
            if (key.equals(FleetRecord.DEFAULT_KEY)) {
                router.applyDefault(RouteText.parse(record.field("route")), why);
            } else if (key.startsWith(FleetRecord.ROUTE_PREFIX)) {
                router.applyRoute(key.substring(FleetRecord.ROUTE_PREFIX.length()), RouteText.parse(record.field("route")), why);
            } else if (key.startsWith(FleetRecord.GATE_PREFIX)) {
                gateRecord(key.substring(FleetRecord.GATE_PREFIX.length()), record);
            }
        } catch (RuntimeException e) {
            log.error("Fleet '{}': record '{}' ({}) cannot be applied on replica '{}', which keeps its route: {}", settings.fleet(),
                    key, why, settings.replica(), e.getMessage());
        }
    }

    /** Stores a new version of {@code key} on the log, then applies it here. */
    private void write(String key, Map<String, String> fields, String what) {
        FleetRecord previous = applied.get(key);
        FleetRecord record = new FleetRecord(previous == null ? 1 : previous.version() + 1, clock.millis(), settings.replica(), fields);
        try {
            routeLog.append(key, record.encode()).toCompletableFuture().get(settings.writeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while storing " + what + " on the control channel", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SwitchboardException(what + " was not made: the control channel on instance '" + control.name() + "' ("
                    + control.brokerId() + ") did not store it within " + settings.writeTimeout() + " ("
                    + (e instanceof ExecutionException ? e.getCause() : "timed out") + "), so no replica changed; retry when the"
                    + " control instance is reachable, or change this replica alone with Routing.updateLocal", e);
        }
        merge(key, record);
    }

    public void writeRoute(String destination, Route route) {
        write(FleetRecord.ROUTE_PREFIX + destination, Map.of("route", RouteText.format(route)), "The route change of '" + destination + "'");
    }

    public void writeDefault(Route route) {
        write(FleetRecord.DEFAULT_KEY, Map.of("route", RouteText.format(route)), "The default route change");
    }

    // ---- promotion gates ----

    public Promotion promote(String destination, PromotionGate gate) {
        FleetPromotion running = promotions.get(destination);
        String id = UUID.randomUUID().toString();
        writeGate(destination, id, gate, Promotion.State.RUNNING, -1, 0, 0, "starting (replaced " + (running == null ? "nothing" : running.id()) + ")");
        return promotions.get(destination);
    }

    public Optional<Promotion> promotion(String destination) {
        return Optional.ofNullable(promotions.get(destination));
    }

    /** Cancels a running gate of {@code destination} because {@code why}. */
    public void cancelGate(String destination, String why) {
        FleetPromotion p = promotions.get(destination);
        if (p != null && p.state() == Promotion.State.RUNNING) {
            writeGate(destination, p.id(), p.gate(), Promotion.State.CANCELLED, p.step(), p.stepStartSecond(), p.targetPercent(), why);
        }
    }

    private void writeGate(String destination, String id, PromotionGate gate, Promotion.State state, int step, long stepStart,
            int percent, String reason) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("id", id);
        f.put("gate", FleetPromotion.formatGate(gate));
        f.put("state", state.name());
        f.put("step", Integer.toString(step));
        f.put("stepStart", Long.toString(stepStart));
        f.put("percent", Integer.toString(percent));
        f.put("reason", reason);
        write(FleetRecord.GATE_PREFIX + destination, f, "The promotion gate change of '" + destination + "'");
    }

    private void gateRecord(String destination, FleetRecord record) {
        FleetPromotion view = promotions.get(destination);
        if (view == null || !view.id().equals(record.field("id"))) {
            if (view != null) {
                view.replaced();
            }
            view = new FleetPromotion(destination, record, p -> cancelGate(destination, "cancelled by the application"));
            promotions.put(destination, view);
            gatePercents.computeIfAbsent(destination, d -> {
                AtomicInteger p = new AtomicInteger();
                router.gateStep(d, p);
                return p;
            });
        } else {
            view.update(record);
        }
        gatePercents.get(destination).set(view.targetPercent());
        if (view.state() != Promotion.State.RUNNING) {
            driving.remove(destination);
        }
    }

    /** On the leader: one judgement of every running gate, each resumed from its newest record. */
    private void driveGates() {
        if (!leader) {
            return;
        }
        long now = clock.millis() / 1000;
        for (FleetPromotion p : promotions.values()) {
            if (p.state() != Promotion.State.RUNNING) {
                continue;
            }
            String d = p.destination();
            GateRunner runner = driving.get(d);
            if (runner == null || runner.state() != Promotion.State.RUNNING || runner.step() != p.step()) {
                runner = GateRunner.resume(this, d, p.gate(), new AtomicInteger(), p.step(), p.stepStartSecond());
                driving.put(d, runner);
            }
            try {
                runner.drive(now);
            } catch (RuntimeException e) {
                driving.remove(d);
                log.warn("Fleet '{}': promotion of '{}' could not take its step now, will judge again: {}", settings.fleet(), d,
                        e.getMessage());
            }
        }
    }

    @Override
    public void applyFromGate(String destination, Route route, String why) {
        if (!leadership.isLeader()) {
            throw new IllegalStateException("replica '" + settings.replica() + "' no longer leads fleet '" + settings.fleet() + "'");
        }
         writeRoute(destination, route);
    }

    @Override
    public void gateChanged(GateRunner runner) {
        FleetPromotion p = promotions.get(runner.destination());
        if (p != null && leadership.isLeader()) {
            writeGate(runner.destination(), p.id(), p.gate(), runner.state(), runner.step(), runner.stepStartSecond(),
                    runner.targetPercent(), runner.reason());
        }
    }

    @Override
    public Map<String, TrafficStats.Window> windows(String destination, long fromSecond, long nowSecond) {
        // the other replicas share a second after it ended: the newest complete fleet second is now - 2, so the window
        // of a step is judged one second later than on one replica
        return router.comparisonEngine().judging().windows(destination, fromSecond - 1, nowSecond - 2);
    }

    @Override
    public void gateTransition(String destination, String outcome) {
        router.gateTransition(destination, outcome);
    }

    // ---- the ticker ----

    /** Once a second on the routing ticker: heartbeat and figures, status, gates, the periodic re-append. */
    public void tick(long nowSecond, java.util.Set<String> draining) {
        boolean connected = routeLog.connected();
        if (!connected && degraded == null) {
            degraded = "the control channel on instance '" + control.name() + "' (" + control.brokerId() + ") is unreachable; replica '"
                    + settings.replica() + "' keeps its last routes (version " + routeVersion() + ") and catches up when it returns";
            log.warn("Fleet '{}': {}", settings.fleet(), degraded);
        } else if (connected && degraded != null) {
            // following again: whatever was appended meanwhile reaches this replica through the follower
            caughtUp = true;
            degraded = null;
            log.info("Fleet '{}': control channel on instance '{}' reachable again; route version {}", settings.fleet(), control.name(),
                    routeVersion());
        }
        bus.heartbeat(nowSecond - 1, routeVersion(), leader, status(), draining);
        bus.checkDrains();
        if (leader) {
            worker.execute(this::driveGates);
            if (clock.millis() - lastRefreshMillis > settings.refresh().toMillis()) {
                lastRefreshMillis = clock.millis();
                worker.execute(this::reappend);
            }
        }
    }

    /** On the leader, now and then: every key's newest record appended again, so a log that truncates by age or size keeps them. */
    private void reappend() {
        if (lastRefreshMillis != 0 && applied.isEmpty()) {
            return;
        }
        for (Map.Entry<String, FleetRecord> e : applied.entrySet()) {
            routeLog.append(e.getKey(), e.getValue().encode());
        }
    }

    /** Completes when every live replica has reported {@code destination} drained after this call. */
    public java.util.concurrent.CompletionStage<Void> fleetDrained(String destination) {
        return bus.drained(destination);
    }

    // ---- Fleet ----

    @Override
    public Status status() {
        return degraded != null ? Status.DEGRADED : Status.UP;
    }

    @Override
    public String reason() {
        String d = degraded;
        return d != null ? d : "following fleet '" + settings.fleet() + "' through instance '" + control.name() + "' (" + control.brokerId()
                + ")";
    }

    @Override
    public String fleetName() {
        return settings.fleet();
    }

    @Override
    public String replica() {
        return settings.replica();
    }

    @Override
    public String controlInstance() {
        return control.name();
    }

    @Override
    public long routeVersion() {
        long sum = 0;
        for (FleetRecord r : applied.values()) {
            sum += r.version();
        }
        return sum;
    }

    @Override
    public boolean leader() {
        return leader;
    }

    @Override
    public List<Replica> replicas() {
        return bus.replicas(new Replica(settings.replica(), routeVersion(), true, leader, status(), clock.instant()));
    }

    @Override
    public void close() {
        leadership.close();
        bus.close();
        routeLog.close();
        worker.shutdownNow();
    }
}
