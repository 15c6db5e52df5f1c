package io.switchboard.internal.fleet;

import io.switchboard.internal.comparison.GateWindow;
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
 * current step began, by the comparison verdict's rule ({@link GateWindow}): the target must keep
 * its publish p99 within max(source p99 x ratio, source p99 + slack) and its error rate within the
 * allowed increase. After {@code hold} with the p99 judged and no breach it advances; a step whose
 * p99 has too few samples is extended up to {@code maxHold} and then advances on the quantile that
 * could be judged; a breach rolls back to the source once it was significant at every judgement for
 * {@code breachFor} and over the seconds since it was first seen, judged alone (a breach those seconds
 * refute is dropped with the seconds that showed it). Each second of the step is read from the
 * comparison once, on the tick.
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
    /** The step's traffic so far, second by second. */
    private GateWindow window = new GateWindow();
    /** The next second to read into the window. */
    private long readNext;
    /** The judgement since which a breach has been significant at every judgement, or {@link #NO_BREACH}. */
    private long breachSince = NO_BREACH;
    /** The seconds read since the breach was first seen, judged alone to confirm it (null: none seen). */
    private GateWindow confirm;
    private static final long NO_BREACH = Long.MIN_VALUE;

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
        r.readNext = stepStartSecond;
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
        advance(nowSecond, "");
    }

    /** Applies the first step when none is held yet, else judges. */
    synchronized void drive(long nowSecond) {
        if (state != State.RUNNING) {
            return;
        }
        if (step < 0) {
            advance(nowSecond, "");
        } else {
            tick(nowSecond);
        }
    }

    /** Applies the next step; {@code note} says how the step before ended ("" when it was judged in full). */
    private void advance(long nowSecond, String note) {
        int next = step + 1;
        window = new GateWindow();
        readNext = nowSecond;
        breachSince = NO_BREACH;
        confirm = null;
        int target = steps[next];
        if (target >= 100) {
            router.applyFromGate(destination, Route.single(gate.target()), "promotion of '" + destination + "' to '"
                    + gate.target() + "' complete" + note);
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
                + steps.length + ": " + target + "% to '" + gate.target() + "'" + note);
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
        long maxHoldSeconds = gate.maxHold().toSeconds();
        long breachForSeconds = gate.breachFor().toSeconds();
        // each complete second of the step once (a gate taken over reads back at most what its step can last)
        long first = Math.max(readNext, nowSecond - maxHoldSeconds - breachForSeconds - 2);
        for (long k = first; k < nowSecond; k++) {
            Map<String, TrafficStats.Window> w = router.windows(destination, k, k + 1);
            window.add(w.get(gate.source()), w.get(gate.target()));
            if (confirm != null) {
                confirm.add(w.get(gate.source()), w.get(gate.target()));
            }
        }
        readNext = Math.max(readNext, nowSecond);
        GateWindow.Judgement j = window.judge(gate.source(), gate.target(), gate.minSamples(), gate.maxP99Ratio(),
                gate.p99Slack().toNanos() / 1e6, gate.maxErrorRateIncrease());
        String at = "step " + (step + 1) + " (" + steps[step] + "%)";
        if (j.outcome() == GateWindow.Outcome.BREACH) {
            if (breachSince == NO_BREACH) {
                breachSince = nowSecond;
                confirm = new GateWindow();
            }
            long held = nowSecond - breachSince;
            GateWindow.Judgement c = confirm.judge(gate.source(), gate.target(), gate.minSamples(), gate.maxP99Ratio(),
                    gate.p99Slack().toNanos() / 1e6, gate.maxErrorRateIncrease());
            if (held >= breachForSeconds && (breachForSeconds == 0 || c.outcome() == GateWindow.Outcome.BREACH)) {
                String breach = j.text() + "; significant at every judgement for " + held + " s"
                        + (breachForSeconds == 0 ? "" : ", and over the " + confirm.seconds() + " s since, judged alone");
                router.applyFromGate(destination, Route.single(gate.source()), "promotion of '" + destination
                        + "' rolled back to '" + gate.source() + "': " + breach);
                percent.set(0);
                stepStartSecond = nowSecond;
                router.gateTransition(destination, "rollback");
                finish(State.ROLLED_BACK, breach);
                return;
            }
            if (held >= breachForSeconds && c.outcome() != GateWindow.Outcome.UNDECIDED) {
                // it did not hold: the seconds that showed it are dropped, the step goes on from those since
                log.info("Promotion of '{}' {}: a breach did not hold over the {} s after it ({}); judging from then on: {}",
                        destination, at, confirm.seconds(), c.text(), j.text());
                window = confirm;
                breachSince = NO_BREACH;
                confirm = null;
                reason = String.format(Locale.ROOT, "%s: a breach did not hold over the %d s after it; judging from then on",
                        at, window.seconds());
                return;
            }
            reason = String.format(Locale.ROOT, "%s: breach significant for %d s of %d s; rolls back if it holds, and over the "
                    + "seconds since, judged alone (%s): %s", at, held, breachForSeconds, c.text(), j.text());
            return;
        }
        confirm = null;
        breachSince = NO_BREACH;
        long held = nowSecond - stepStartSecond;
        if (held >= holdSeconds && j.outcome() == GateWindow.Outcome.HEALTHY) {
            advance(nowSecond, "");
        } else if (held >= maxHoldSeconds && j.outcome() == GateWindow.Outcome.PARTIAL) {
            String note = String.format(Locale.ROOT, " (%s judged only in part at its max hold of %d s: %s)", at, maxHoldSeconds,
                    j.text());
            log.info("Promotion of '{}' advances{}", destination, note);
            advance(nowSecond, note);
        } else if (j.outcome() == GateWindow.Outcome.HEALTHY) {
            reason = String.format(Locale.ROOT, "%s healthy for %d s of %d s: %s", at, held, holdSeconds, j.text());
        } else {
            reason = String.format(Locale.ROOT, "%s held %d s (hold %d s, extended up to %d s while the p99 is not yet decided): "
                    + "%s", at, held, holdSeconds, maxHoldSeconds, j.text());
        }
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
