package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.internal.fleet.GateRunner;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The promotion gate's calibration on simulated traffic, seeded: whole promotions driven second by second by the gate's
 * own code over a traffic book, the target's share following the gate's steps. {@value #RATE} publishes a second over
 * both instances (so the target carries 100 a second at the first step), latencies as in {@link VerdictCalibrationTest}
 * (log-normal, median 3 ms, sigma 0.5, a load factor per second), the gate at steps 10, 25, 50, 100 holding 30 s, with a
 * bound of 1.2x or 1 ms over the source's p99 and one percentage point of errors. Counted and asserted: an identical
 * target is rolled back in at most 1 of 20 promotions when it stalls 30 ms every 5 s, and in none without stalls (with
 * this bound and with the default one, 1.5x or 5 ms); a target whose every latency is 1.5x, or which fails 5% of its
 * publishes, is rolled back in every promotion. The same gate rolling back at the first significant judgement
 * ({@code breachFor(0s)}) is run too, for comparison. {@code -Dgate.promotions=N} changes the number of promotions. The
 * counts are printed; docs/routing.md quotes them.
 */
@DisplayName("Promotion gates are calibrated: an identical target is kept, a worse one rolled back")
@Timeout(120)
class PromotionGateCalibrationTest {

    static final int PROMOTIONS = Integer.getInteger("gate.promotions", 20);
    static final int RATE = 1000;
    /** The longest a simulated promotion runs before it is counted as undecided. */
    static final int MAX_SECONDS = 1200;

    static final PromotionGate GATE = PromotionGate.from("a").to("b").steps(10, 25, 50, 100).hold(Duration.ofSeconds(30))
            .maxP99Ratio(1.2).p99Slack(Duration.ofMillis(1)).build();
    /** {@link #GATE} rolling back at the first significant judgement: the rule over the window without the hold. */
    static final PromotionGate AT_ONCE = PromotionGate.from("a").to("b").steps(10, 25, 50, 100).hold(Duration.ofSeconds(30))
            .maxP99Ratio(1.2).p99Slack(Duration.ofMillis(1)).breachFor(Duration.ZERO).build();
    /** The same steps with the default bound (1.5x or 5 ms). */
    static final PromotionGate DEFAULT_BOUND = PromotionGate.from("a").to("b").steps(10, 25, 50, 100)
            .hold(Duration.ofSeconds(30)).build();

    /** What the target does differently. */
    record Target(double latencyFactor, double errorRate, boolean stalls, boolean burst) {
        Target(double latencyFactor, double errorRate, boolean stalls) {
            this(latencyFactor, errorRate, stalls, false);
        }
    }

    /** The second of a promotion in which a target with a burst fails half of its publishes. */
    static final int BURST_SECOND = 12;

    @Test
    @DisplayName("an identical target stalling 30 ms every 5 s: at most 1 of 20 promotions rolled back")
    void identicalWithStalls() {
        SoftAssertions soft = new SoftAssertions();
        run("A/A, 30 ms stall every 5 s on the target (for comparison, not asserted)", AT_ONCE, new Target(1.0, 0, true),
                10_000);
        for (PromotionGate gate : List.of(GATE, DEFAULT_BOUND)) {
            List<String> ends = run("A/A, 30 ms stall every 5 s on the target", gate, new Target(1.0, 0, true), 10_000);
            soft.assertThat(rolledBack(ends)).as("false rollbacks of %d, %s", PROMOTIONS, gate).isLessThanOrEqualTo(PROMOTIONS / 20);
            soft.assertThat(completed(ends)).as("completed of %d, %s", PROMOTIONS, gate).isEqualTo(PROMOTIONS - rolledBack(ends));
        }
        soft.assertAll();
    }

    @Test
    @DisplayName("an identical target: no promotion rolled back")
    void identical() {
        SoftAssertions soft = new SoftAssertions();
        run("A/A (for comparison, not asserted)", AT_ONCE, new Target(1.0, 0, false), 20_000);
        for (PromotionGate gate : List.of(GATE, DEFAULT_BOUND)) {
            List<String> ends = run("A/A", gate, new Target(1.0, 0, false), 20_000);
            soft.assertThat(rolledBack(ends)).as("false rollbacks of %d, %s", PROMOTIONS, gate).isZero();
            soft.assertThat(completed(ends)).as("completed of %d, %s", PROMOTIONS, gate).isEqualTo(PROMOTIONS);
        }
        soft.assertAll();
    }

    @Test
    @DisplayName("a target 1.5x slower: every promotion rolled back")
    void slower() {
        for (PromotionGate gate : List.of(GATE, AT_ONCE)) {
            List<String> ends = run("target 1.5x slower", gate, new Target(1.5, 0, false), 30_000);
            assertThat(rolledBack(ends)).as("rollbacks of %d", PROMOTIONS).isEqualTo(PROMOTIONS);
        }
    }

    @Test
    @DisplayName("a target failing 5% of its publishes: every promotion rolled back")
    void failing() {
        List<String> ends = run("target 5% errors", GATE, new Target(1.0, 0.05, false), 40_000);
        assertThat(rolledBack(ends)).as("rollbacks of %d", PROMOTIONS).isEqualTo(PROMOTIONS);
    }

    @Test
    @DisplayName("an identical target failing half its publishes in one second: no promotion rolled back")
    void burstOfErrors() {
        List<String> ends = run("A/A, half the target's publishes failed in one second", GATE, new Target(1.0, 0, false, true),
                50_000);
        assertThat(rolledBack(ends)).as("false rollbacks of %d", PROMOTIONS).isZero();
    }

    private static long rolledBack(List<String> ends) {
        return ends.stream().filter(e -> e.startsWith("ROLLED_BACK")).count();
    }

    private static long completed(List<String> ends) {
        return ends.stream().filter(e -> e.startsWith("COMPLETED")).count();
    }

    private static List<String> run(String what, PromotionGate gate, Target target, long seed) {
        List<String> ends = new ArrayList<>();
        long seconds = 0;
        for (int p = 0; p < PROMOTIONS; p++) {
            String end = promote(new Random(seed + p), gate, target);
            ends.add(end);
            seconds += Long.parseLong(end.substring(end.indexOf('@') + 1, end.indexOf(' ')));
        }
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "gate (p99 bound %.1fx or %d ms, breach for %d s), %s: %d of %d promotions rolled back, %d completed "
                + "(mean %.0f s a promotion)%n", gate.maxP99Ratio(), gate.p99Slack().toMillis(), gate.breachFor().toSeconds(), what, rolledBack(ends), PROMOTIONS, completed(ends), (double) seconds / PROMOTIONS));
        ends.stream().filter(e -> !e.startsWith("COMPLETED")).limit(5).forEach(e -> b.append("  ").append(e).append('\n'));
        System.out.print(b);
        return ends;
    }

    /** One promotion, second by second; its end as "STATE@seconds reason". */
    private static String promote(Random random, PromotionGate settings, Target target) {
        SimulatedTraffic sim = new SimulatedTraffic(600, 0, Map.of());
        AtomicInteger percent = new AtomicInteger();
        GateRunner.Host host = new GateRunner.Host() {
            @Override
            public void applyFromGate(String destination, Route route, String why) {
                // the share follows the percentage the gate sets
            }

            @Override
            public Map<String, TrafficStats.Window> windows(String destination, long fromSecond, long nowSecond) {
                return sim.engine.windows(destination, fromSecond, nowSecond - 1);
            }

            @Override
            public void gateTransition(String destination, String outcome) {
                // not counted here
            }
        };
        GateRunner gate = new GateRunner(host, "orders", settings, percent);
        long start = sim.millis.get() / 1000;
        gate.start(start);
        long phase = random.nextInt(5_000); // the target's first stall, in ms from the start
        int s = 0;
        for (; s < MAX_SECONDS && gate.state() == Promotion.State.RUNNING; s++) {
            int toTarget = Math.round(RATE * percent.get() / 100f);
            second(random, sim, "a", RATE - toTarget, 1.0, 0, -1, s);
            second(random, sim, "b", toTarget, target.latencyFactor, target.burst && s == BURST_SECOND ? 0.5 : target.errorRate,
                    target.stalls ? phase : -1, s);
            sim.nextSecond();
            gate.tick(sim.millis.get() / 1000);
        }
        return gate.state() + "@" + s + " " + gate.reason();
    }

    /** One second's publishes of one instance, spread evenly over the second; a stall holds those it meets for 30 ms. */
    private static void second(Random random, SimulatedTraffic sim, String instance, int publishes, double factor, double errors,
            long stallPhase, int s) {
        double load = Math.exp(0.05 * random.nextGaussian());
        for (int i = 0; i < publishes; i++) {
            if (errors > 0 && random.nextDouble() < errors) {
                sim.publishFailed(instance);
                continue;
            }
            double micros = factor * 3_000 * load * Math.exp(0.5 * random.nextGaussian());
            if (stallPhase >= 0) {
                double at = s * 1_000_000.0 + i * 1_000_000.0 / publishes; // when it began, in us from the start
                double stall = stallPhase * 1000.0 + Math.floor((at - stallPhase * 1000.0) / 5_000_000.0) * 5_000_000.0;
                double next = stall + 5_000_000.0;
                if (at >= stall && at < stall + 30_000) {
                    micros += stall + 30_000 - at; // began during the stall: waits for its end
                } else if (at < next && at + micros > next) {
                    micros += 30_000; // in flight when the stall began
                }
            }
            sim.publish(instance, Math.round(micros));
        }
    }
}
