package io.switchboard.internal.routing;

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
final class GateRunner implements Promotion {

    private static final Logger log = LoggerFactory.getLogger(GateRunner.class);

    private final Router router;
    private final String destination;
    private final PromotionGate gate;
    private final int[] steps;
    private final AtomicInteger percent;
    private final CompletableFuture<State> finished = new CompletableFuture<>();
    private volatile State state = State.RUNNING;
    private volatile String reason = "starting";
    private int step = -1;
    private long stepStartSecond;

    GateRunner(Router router, String destination, PromotionGate gate, AtomicInteger percent) {
        this.router = router;
        this.destination = destination;
        this.gate = gate;
        this.steps = gate.steps();
        this.percent = percent;
    }

    /** Applies the first step. */
    synchronized void start(long nowSecond) {
        advance(nowSecond);
    }

    private void advance(long nowSecond) {
        step++;
        int target = steps[step];
        percent.set(target);
        stepStartSecond = nowSecond;
        if (target >= 100) {
            router.applyFromGate(destination, Route.single(gate.target()), "promotion of '" + destination + "' to '"
                    + gate.target() + "' complete");
            router.meters().gateTransition(destination, "complete");
            finish(State.COMPLETED, "target '" + gate.target() + "' carries 100%");
            return;
        }
        Map<String, Integer> weights = new LinkedHashMap<>();
        weights.put(gate.source(), 100 - target);
        weights.put(gate.target(), target);
        router.applyFromGate(destination, Route.split(weights), "promotion of '" + destination + "' step " + (step + 1) + "/"
                + steps.length + ": " + target + "% to '" + gate.target() + "'");
        router.meters().gateTransition(destination, "advance");
        reason = "holding step " + (step + 1) + " (" + target + "%) for " + gate.hold();
    }

    /** One judgement. */
    synchronized void tick(long nowSecond) {
        if (state != State.RUNNING || step < 0) {
            return; // a tick of the routing thread can come before start() applied the first step
        }
        long holdSeconds = gate.hold().toSeconds();
        long from = Math.max(stepStartSecond, nowSecond - holdSeconds);
        Map<String, TrafficStats.Window> w = router.comparisonEngine().windows(destination, from, nowSecond - 1);
        TrafficStats.Window source = w.get(gate.source());
        TrafficStats.Window target = w.get(gate.target());
        long ns = source.published + source.publishFailed;
        long nt = target.published + target.publishFailed;
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
            router.meters().gateTransition(destination, "rollback");
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
        double sp99 = source.publishLatency.getTotalCount() == 0 ? 0 : source.publishLatency.getValueAtPercentile(99) / 1000.0;
        double tp99 = target.publishLatency.getTotalCount() == 0 ? 0 : target.publishLatency.getValueAtPercentile(99) / 1000.0;
        double limit = Math.max(sp99 * gate.maxP99Ratio(), sp99 + gate.p99Slack().toNanos() / 1e6);
        if (tp99 > limit) {
            return String.format(Locale.ROOT, "target '%s' publish p99 %.2f ms exceeds the bound %.2f ms (source '%s' p99 %.2f ms)",
                    gate.target(), tp99, limit, gate.source(), sp99);
        }
        double se = (double) source.publishFailed / ns;
        double te = (double) target.publishFailed / nt;
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
        finished.complete(end);
    }

    /** Stops without touching the weights. */
    synchronized void cancel(String why) {
        if (state == State.RUNNING) {
            router.meters().gateTransition(destination, "cancel");
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
