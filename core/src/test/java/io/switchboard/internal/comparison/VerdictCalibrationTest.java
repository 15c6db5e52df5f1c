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
 * The verdict's calibration on simulated samples, the judging code run thousands of times, seeded: two identical
 * instances (A/A) must give no finding in at least 95% of runs; a planted 20% difference (every latency of b 1.2 times
 * the same draw's) must be found in at least 95%. Each run is a 60 s window at {@value #RATE} publishes and deliveries
 * a second per instance (24,000 samples each, so every quantile up to p99.9 is judged); latencies are log-normal
 * (median 3 ms, sigma 0.5), and each second has a load factor of its own (log-normal, sigma 0.05) shared by its samples,
 * as a real second's scheduling is. The rates per figure are printed; docs/verdict.md quotes them.
 */
@DisplayName("The verdict is calibrated: A/A finds nothing, a planted 20% is found")
@Timeout(600)
class VerdictCalibrationTest {

    static final int RUNS = Integer.getInteger("verdict.runs", 1000);
    static final int RATE = 400;
    static final int SECONDS = 60;

    @Test
    @DisplayName("A/A: no finding in at least 95% of runs")
    void aa() {
        Map<String, Integer> perFigure = new TreeMap<>();
        int withFinding = 0;
        for (int run = 0; run < RUNS; run++) {
            List<Finding> findings = run(new Random(1_000 + run), 1.0);
            findings.forEach(f -> perFigure.merge(f.figure(), 1, Integer::sum));
            withFinding += findings.isEmpty() ? 0 : 1;
        }
        print("A/A false-positive rate", withFinding, perFigure);
        assertThat(RUNS - withFinding).as("A/A runs without a finding, of %d", RUNS).isGreaterThanOrEqualTo((int) (0.95 * RUNS));
    }

    @Test
    @DisplayName("a planted 20% difference: found in at least 95% of runs, never the wrong way")
    void planted() {
        Map<String, Integer> perFigure = new TreeMap<>();
        int found = 0;
        int wrongWay = 0;
        for (int run = 0; run < RUNS; run++) {
            List<Finding> findings = run(new Random(500_000 + run), 1.2);
            findings.stream().filter(f -> f.behind().equals("b")).forEach(f -> perFigure.merge(f.figure(), 1, Integer::sum));
            found += findings.stream().anyMatch(f -> f.behind().equals("b")) ? 1 : 0;
            wrongWay += findings.stream().anyMatch(f -> f.behind().equals("a")) ? 1 : 0;
        }
        print("planted 20% detection rate", found, perFigure);
        assertThat(found).as("runs that found b behind, of %d", RUNS).isGreaterThanOrEqualTo((int) (0.95 * RUNS));
        assertThat(wrongWay).as("runs that put a behind").isZero();
    }

    /** One 60 s window of two instances, b's latencies {@code factor} times a draw like a's; the verdict's findings. */
    static List<Finding> run(Random random, double factor) {
        SimulatedTraffic sim = new SimulatedTraffic(SECONDS, 0, Map.of());
        for (int s = 0; s < SECONDS; s++) {
            double secondA = Math.exp(0.05 * random.nextGaussian());
            double secondB = Math.exp(0.05 * random.nextGaussian());
            for (int i = 0; i < RATE; i++) {
                sim.sample("a", draw(random, secondA), draw(random, secondA));
                sim.sample("b", Math.round(factor * draw(random, secondB)), Math.round(factor * draw(random, secondB)));
            }
            sim.nextSecond();
        }
        ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(SECONDS));
        return report.verdict().findings();
    }

    /** {@return a latency in microseconds: log-normal, median 3 ms times the second's load factor, sigma 0.5} */
    static long draw(Random random, double second) {
        return Math.round(3_000 * second * Math.exp(0.5 * random.nextGaussian()));
    }

    private static void print(String what, int runs, Map<String, Integer> perFigure) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s: %d of %d runs (%.2f%%)%n", what, runs, RUNS,
                100.0 * runs / RUNS));
        for (String figure : List.of("publish p50", "publish p99", "publish p99.9", "e2e p50", "e2e p99", "e2e p99.9",
                "error rate", "dead-letter rate")) {
            int n = perFigure.getOrDefault(figure, 0);
            b.append(String.format(Locale.ROOT, "  %s: %d of %d (%.2f%%)%n", figure, n, RUNS, 100.0 * n / RUNS));
        }
        System.out.print(b);
    }
}
