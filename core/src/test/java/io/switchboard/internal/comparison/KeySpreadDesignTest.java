package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two identical brokers carrying keyed traffic whose keys differ in cost (issue 87): {@value #KEYS} keys with Zipf
 * frequencies (s = 1, so the busiest key carries about a fifth of the traffic) and each key a latency multiplier drawn
 * once, log-normal with median 1 and sigma 0.4 ({@code -Ddesign.sigma} changes it; payload size per tenant). Each run draws its own keys and,
 * for a split by key, its own assignment of keys to instances (each key on a or b, half the chance each, as a 50/50
 * split's hash does), then judges one {@value #SECONDS} s window at {@value #RATE} messages a second over both
 * instances; latencies are otherwise the calibration's (log-normal, median 3 ms, sigma 0.5, a load factor per second
 * and instance, sigma 0.05). Under a split by key the instances carry different keys, so identical brokers are judged
 * apart whenever the keys' costs fall unevenly; per message, both carry the same mix and the verdict stays calibrated.
 * Seeded; {@code -Ddesign.runs=N} runs N windows a case (20 by default). The rates are printed; docs/verdict.md quotes
 * them.
 */
@DisplayName("Designs that compare like with like: identical brokers, keys of different cost")
@Timeout(600)
class KeySpreadDesignTest {

    static final int RUNS = Integer.getInteger("design.runs", 20);
    static final int KEYS = 100;
    /** The spread of the keys' costs: {@code -Ddesign.sigma} (0.4 by default). */
    static final double SIGMA = Double.parseDouble(System.getProperty("design.sigma", "0.4"));
    static final int RATE = 800;
    static final int SECONDS = 60;

    @Test
    @DisplayName("split by key: identical brokers are judged apart in more than 1 window of 20, every finding saying why")
    void stickyByKey() {
        int withFinding = identical(true, "split by key", findings -> assertThat(findings).allSatisfy(f -> assertThat(f.notes())
                .anySatisfy(n -> assertThat(n).startsWith("the instances carry different keys (split by key)")
                        .contains(".perMessage()").contains("Route.mirror("))));
        assertThat(withFinding).as("windows of %d in which identical brokers were judged apart under a split by key", RUNS)
                .isGreaterThan(RUNS / 20);
    }

    @Test
    @DisplayName("split per message: identical brokers give no finding in at least 19 of 20 windows")
    void perMessage() {
        int withFinding = identical(false, "split per message", findings -> { }); // the same keys as the split by key's
        assertThat(RUNS - withFinding).as("windows of %d without a finding", RUNS).isGreaterThanOrEqualTo((int) Math.ceil(0.95 * RUNS));
    }

    /** Runs {@link #RUNS} windows of identical instances, each window's findings checked; prints and returns how many had one. */
    private static int identical(boolean byKey, String design, java.util.function.Consumer<List<Finding>> check) {
        Map<String, Integer> perFigure = new TreeMap<>();
        int withFinding = 0;
        for (int run = 0; run < RUNS; run++) {
            List<Finding> findings = run(new Random(87_000 + run), byKey, 1.0);
            findings.forEach(f -> perFigure.merge(f.figure(), 1, Integer::sum));
            withFinding += findings.isEmpty() ? 0 : 1;
            check.accept(findings);
        }
        print(design + ", identical brokers: windows with a finding", withFinding, perFigure);
        return withFinding;
    }

    @Test
    @DisplayName("split per message: b planted 1.3x slower is found behind in at least 19 of 20 windows, never the wrong way")
    void plantedPerMessage() {
        Map<String, Integer> perFigure = new TreeMap<>();
        int found = 0;
        int wrongWay = 0;
        for (int run = 0; run < RUNS; run++) {
            List<Finding> findings = run(new Random(187_000 + run), false, 1.3);
            findings.stream().filter(f -> f.behind().equals("b")).forEach(f -> perFigure.merge(f.figure(), 1, Integer::sum));
            found += findings.stream().anyMatch(f -> f.behind().equals("b")) ? 1 : 0;
            wrongWay += findings.stream().anyMatch(f -> f.behind().equals("a")) ? 1 : 0;
        }
        print("split per message, b 1.3x slower: windows that found b behind", found, perFigure);
        assertThat(found).as("windows of %d that found b behind", RUNS).isGreaterThanOrEqualTo((int) Math.ceil(0.95 * RUNS));
        assertThat(wrongWay).as("windows that put a behind").isZero();
    }

    /**
     * {@return the verdict's findings of one window} The run's keys, each message to an instance by its key
     * ({@code byKey}) or at random; b's latencies {@code factor} times a draw like a's.
     */
    static List<Finding> run(Random random, boolean byKey, double factor) {
        SimulatedTraffic.Keys keys = new SimulatedTraffic.Keys(random, KEYS, 1.0, SIGMA);
        boolean[] onB = new boolean[KEYS];
        for (int k = 0; k < KEYS; k++) {
            onB[k] = random.nextBoolean();
        }
        SimulatedTraffic sim = new SimulatedTraffic(SECONDS, 0, Map.of());
        sim.design(byKey ? ComparisonReport.Design.SPLIT_BY_KEY : ComparisonReport.Design.SPLIT_PER_MESSAGE, true);
        for (int s = 0; s < SECONDS; s++) {
            double secondA = Math.exp(0.05 * random.nextGaussian());
            double secondB = Math.exp(0.05 * random.nextGaussian());
            for (int i = 0; i < RATE; i++) {
                int key = keys.draw(random);
                boolean b = byKey ? onB[key] : random.nextBoolean();
                double m = keys.multiplier[key] * (b ? factor : 1);
                double second = b ? secondB : secondA;
                sim.sample(b ? "b" : "a", Math.round(m * VerdictCalibrationTest.draw(random, second)),
                        Math.round(m * VerdictCalibrationTest.draw(random, second)));
            }
            sim.nextSecond();
        }
        return sim.engine.report("orders", Duration.ofSeconds(SECONDS)).verdict().findings();
    }

    private static void print(String what, int runs, Map<String, Integer> perFigure) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s: %d of %d (%.1f%%)%n", what, runs, RUNS,
                100.0 * runs / RUNS));
        perFigure.forEach((figure, n) -> b.append(String.format(Locale.ROOT, "  %s: %d of %d%n", figure, n, RUNS)));
        System.out.print(b);
    }
}
