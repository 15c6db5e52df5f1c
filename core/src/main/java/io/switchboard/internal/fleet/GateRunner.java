package io.switchboard.internal.fleet;

import io.switchboard.internal.comparison.TrafficStats;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running promotion gate. Judged once a second on the routing ticker, over the traffic since the
 * current step began (at most the last {@code hold}): the target must keep its publish p99 within
 * max(source p99 x ratio, source p99 + slack) and its error rate within the allowed increase, with
 * at least {@code minSamples} publishes on each side; after {@code hold} of that it advances; a
 * breach rolls back to the source at once.
 */
public final class GateRunner implements Promotion {

    /** Where a gate's steps go and what it judges: this process's routes, or the fleet's. */
    public interface Host {
        /** Applies a route the gate chose (fleet: writes it to the route log; throws when it cannot). */
        void applyFromGate(String destination, Route route, String why);

        /** The gate's step or state changed (fleet: writes the gate record); the default does nothing. */
        default void gateChanged(GateRunner runner) {}

        /** Per instance, the traffic of the destination from {@code fromSecond} up to the newest complete second before {@code nowSecond}. */
        Map<String, TrafficStats.Window> windows(String destination, long fromSecond, long nowSecond);

        /** Counts a gate's transition ({@code complete}, {@code advance}, {@code rollback}, {@code cancel}). */
        void gateTransition(String destination, String outcome);
    }

    private static final Logger log = LoggerFactory.getLogger(GateRunner.class);

    private final Host router;
    private final String destination;
    private final PromotionGate gate;
    private final int[] steps;
    private final AtomicInteger percent;
    private final CompletableFuture<State> finished = new CompletableFuture<>();
    private volatile State state = State.RUNNING;
    private volatile String reason = "starting";
    private int step = -1;
    private long stepStartSecond;

    public GateRunner(Host router, String destination, PromotionGate gate, AtomicInteger percent) {
        this.router = router;
        this.destination = destination;
        this.gate = gate;
        this.steps = gate.steps();
        this.percent = percent;
    }

    /** A runner taking over a gate at {@code step} (-1: not started), begun at {@code stepStartSecond}. */
    static GateRunner resume(Host host, String destination, PromotionGate gate, AtomicInteger percent, int step,
            long stepStartSecond) {
        GateRunner r = new GateRunner(host, destination, gate, percent);
        r.step = step;
        r.stepStartSecond = stepStartSecond;
        if (step >= 0) {
            percent.set(r.steps[step]);
            r.reason = "holding step " + (step + 1) + " (" + r.steps[step] + "%), taken over";
        }
        return r;
    }

    /** The index of the step held (-1 before the first). */
    synchronized int step() {
        return step;
    }

    /** When the step held began (epoch second). */
    synchronized long stepStartSecond() {
        return stepStartSecond;
    }

    /** Applies the first step. */
    public synchronized void start(long nowSecond) {
        advance(nowSecond);
    }

    /** Applies the first step when none is held yet, else judges. */
    synchronized void drive(long nowSecond) {
        if (state != State.RUNNING) {
            return;
        }
        if (step < 0) {
            advance(nowSecond);
        } else {
            tick(nowSecond);
        }
    }

    private void advance(long nowSecond) {
        int next = step + 1;
        int target = steps[next];
        if (target >= 100) {
            router.applyFromGate(destination, Route.single(gate.target()), "promotion of '" + destination + "' to '"
                    + gate.target() + "' complete");
            step = next;
            percent.set(target);
            stepStartSecond = nowSecond;
            router.gateTransition(destination, "complete");
            finish(State.COMPLETED, "target '" + gate.target() + "' carries 100%");
            return;
        }
        Map<String, Integer> weights = new LinkedHashMap<>();
        weights.put(gate.source(), 100 - target);
        weights.put(gate.target(), target);
        router.applyFromGate(destination, Route.split(weights), "promotion of '" + destination + "' step " + (next + 1) + "/"
                + steps.length + ": " + target + "% to '" + gate.target() + "'");
        step = next;
        percent.set(target);
        stepStartSecond = nowSecond;
        router.gateTransition(destination, "advance");
        reason = "holding step " + (step + 1) + " (" + target + "%) for " + gate.hold();
        router.gateChanged(this);
    }

    /** One judgement. */
    public synchronized void tick(long nowSecond) {
        if (state != State.RUNNING || step < 0) {
            return; // a tick of the routing thread can come before start() applied the first step
        }
        long holdSeconds = gate.hold().toSeconds();
        long from = Math.max(stepStartSecond, nowSecond - holdSeconds);
        Map<String, TrafficStats.Window> w = router.windows(destination, from, nowSecond);
        TrafficStats.Window source = w.get(gate.source());
        TrafficStats.Window target = w.get(gate.target());
        long ns = source.published() + source.publishFailed();
        long nt = target.published() + target.publishFailed();
        if (ns < gate.minSamples() || nt < gate.minSamples()) {
            reason = String.format(Locale.ROOT, "step %d (%d%%): waiting for %d publishes on each side (source %d, target %d)",
                    step + 1, steps[step], gate.minSamples(), ns, nt);
            return;
        }
        String breach = breach(source, target, ns, nt);
        if (breach != null) {
            router.applyFromGate(destination, Route.single(gate.source()), "promotion of '" + destination + "' rolled back to '"
                    + gate.source() + "': " + breach);
            percent.set(0);
            stepStartSecond = nowSecond;
            router.gateTransition(destination, "rollback");
            finish(State.ROLLED_BACK, breach);
            return;
        }
        if (nowSecond - stepStartSecond >= holdSeconds) {
            advance(nowSecond);
        } else {
            reason = "step " + (step + 1) + " (" + steps[step] + "%) healthy for " + (nowSecond - stepStartSecond) + " s of "
                    + holdSeconds + " s";
        }
    }

    private String breach(TrafficStats.Window source, TrafficStats.Window target, long ns, long nt) {
        double sp99 = source.publishLatency().getTotalCount() == 0 ? 0 : source.publishLatency().getValueAtPercentile(99) / 1000.0;
        double tp99 = target.publishLatency().getTotalCount() == 0 ? 0 : target.publishLatency().getValueAtPercentile(99) / 1000.0;
        double limit = Math.max(sp99 * gate.maxP99Ratio(), sp99 + gate.p99Slack().toNanos() / 1e6);
        if (tp99 > limit) {
            return String.format(Locale.ROOT, "target '%s' publish p99 %.2f ms exceeds the bound %.2f ms (source '%s' p99 %.2f ms)",
                    gate.target(), tp99, limit, gate.source(), sp99);
        }
        double se = (double) source.publishFailed() / ns;
        double te = (double) target.publishFailed() / nt;
        if (te - se > gate.maxErrorRateIncrease()) {
            return String.format(Locale.ROOT, "target '%s' error rate %.2f%% exceeds source '%s' %.2f%% by more than %.2f points",
                    gate.target(), te * 100, gate.source(), se * 100, gate.maxErrorRateIncrease() * 100);
        }
        return null;
    }

    private void finish(State end, String why) {
        state = end;
        reason = why;
        log.info("Promotion of '{}' from '{}' to '{}' {}: {}", destination, gate.source(), gate.target(),
                end.name().toLowerCase(Locale.ROOT).replace('_', ' '), why);
        router.gateChanged(this);
        finished.complete(end);
    }

    /** Stops without touching the weights. */
    public synchronized void cancel(String why) {
        if (state == State.RUNNING) {
            router.gateTransition(destination, "cancel");
            finish(State.CANCELLED, why);
        }
    }

    @Override
    public void cancel() {
        cancel("cancelled by the application");
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public PromotionGate gate() {
        return gate;
    }

    @Override
    public int targetPercent() {
        return percent.get();
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public String reason() {
        return reason;
    }

    @Override
    public CompletionStage<State> finished() {
        return finished;
    }

    @Override
    public String toString() {
        return "Promotion[" + destination + ", " + gate + ", " + state + ", " + reason + "]";
    }
}
