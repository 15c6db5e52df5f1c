package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verdict under dependence (issue 87), on simulated A/A traffic, seeded: two identical instances, each with noise
 * of its own that has a memory of seconds. Each run is a 60 s window at {@value #RATE} publishes and deliveries a second
 * per instance, latencies as in {@link VerdictCalibrationTest} (log-normal, median 3 ms, sigma 0.5, a load factor per
 * second of sigma 0.05), and on top of that, per scenario: a slow latency factor (its logarithm an AR(1) series of
 * correlation time 5-20 s and standard deviation 0.10-0.20); stalls at random times at the same rate on both (30 ms,
 * or 200-500 ms), which hold the samples they meet; the client's CPU per message per second with lag-1 autocorrelation
 * 0.8-0.95. Asserted over {@code -Ddependence.runs=N} runs (20 by default): at most 1 in 20 runs with a finding (none
 * in at least 19 of 20). And a report read every 5 s while its 60 s window fills (12 looks): at most 1 in 20 runs with
 * a finding at any look. The rates are printed; docs/verdict.md quotes them.
 */
@DisplayName("The verdict holds under dependence: slow noise, stalls, autocorrelated CPU, continuous reading")
@Timeout(300)
class DependenceCalibrationTest {

    static final int RUNS = Integer.getInteger("dependence.runs", 20);
    static final int RATE = 400;
    static final int SECONDS = 60;

    /**
     * What each instance's process does besides its log-normal latencies.
     *
     * @param tau correlation time of the slow latency factor, s (0: none)
     * @param sigma its standard deviation (of its logarithm)
     * @param stallsPerSecond stalls a second on a (and on b when {@code bothStall})
     * @param stallMinMs shortest stall
     * @param stallMaxMs longest stall
     * @param bothStall b stalls at the same rate as a, else not at all
     * @param cpuRho lag-1 autocorrelation of the client's CPU per message (NaN: no CPU recorded)
     * @param bFactor b's latencies are this times a draw like a's
     */
    record Scenario(String name, double tau, double sigma, double stallsPerSecond, long stallMinMs, long stallMaxMs,
            boolean bothStall, double cpuRho, double bFactor) {

        static Scenario slow(double tau, double sigma) {
            return new Scenario(String.format(Locale.ROOT, "slow noise tau %.0f s, sigma %.2f", tau, sigma), tau, sigma, 0, 0,
                    0, true, Double.NaN, 1.0);
        }

        static Scenario stalls(String name, double perSecond, long minMs, long maxMs, boolean both) {
            return new Scenario(name, 0, 0, perSecond, minMs, maxMs, both, Double.NaN, 1.0);
        }

        static Scenario cpu(double rho) {
            return new Scenario(String.format(Locale.ROOT, "client CPU lag-1 autocorrelation %.2f", rho), 0, 0, 0, 0, 0, true,
                    rho, 1.0);
        }

        Scenario planted(double factor) {
            return new Scenario(name + String.format(Locale.ROOT, ", b %.1fx slower", factor), tau, sigma, stallsPerSecond,
                    stallMinMs, stallMaxMs, bothStall, cpuRho, factor);
        }
    }

    static final List<Scenario> SLOW = List.of(Scenario.slow(5, 0.10), Scenario.slow(5, 0.20), Scenario.slow(10, 0.10),
            Scenario.slow(10, 0.20), Scenario.slow(20, 0.10), Scenario.slow(20, 0.20));
    static final List<Scenario> STALLS = List.of(
            Scenario.stalls("stalls of 30 ms, one every 5 s on average, on both", 0.2, 30, 30, true),
            Scenario.stalls("stalls of 200-500 ms, 3 a minute on average, on both", 0.05, 200, 500, true),
            Scenario.stalls("stalls of 30-500 ms, 6 a minute on average, on both", 0.1, 30, 500, true));
    static final List<Scenario> CPU = List.of(Scenario.cpu(0.8), Scenario.cpu(0.9), Scenario.cpu(0.95));

    @Test
    @DisplayName("slow noise (correlation time 5-20 s, 10-20%) on both: at most 1 of 20 A/A windows with a finding")
    void slowNoise() {
        assertAtMostOneIn20(SLOW, 10_000);
    }

    @Test
    @DisplayName("stalls of 30-500 ms at the same rate on both: no finding in at least 19 of 20 A/A windows")
    void stalls() {
        assertAtMostOneIn20(STALLS, 20_000);
        // on one side only the stalls are a real difference in the tail: how often it is found, printed
        for (Scenario s : List.of(Scenario.stalls("stalls of 30 ms, one every 5 s on average, on a only", 0.2, 30, 30, false),
                Scenario.stalls("stalls of 200-500 ms, 3 a minute on average, on a only", 0.05, 200, 500, false))) {
            Map<String, Integer> perFigure = new TreeMap<>();
            int found = 0;
            for (int run = 0; run < RUNS; run++) {
                List<Finding> findings = run(new Random(20_000 + run), s);
                findings.forEach(f -> perFigure.merge(f.figure() + (f.behind().equals("a") ? "" : " (b behind)"), 1,
                        Integer::sum));
                found += findings.isEmpty() ? 0 : 1;
            }
            print(s.name() + " (a real difference)", found, perFigure);
        }
    }

    @Test
    @DisplayName("client CPU with lag-1 autocorrelation 0.8-0.95 on both: at most 1 of 20 A/A windows with a finding")
    void autocorrelatedCpu() {
        assertThat(ClientCost.measured()).as("this JVM has thread CPU clocks (client CPU is judged only where it does)")
                .isTrue();
        assertAtMostOneIn20(CPU, 30_000);
    }

    @Test
    @DisplayName("planted differences are still found: b 1.5x slower under slow noise, 1.2x slower under stalls")
    void plantedUnderDependence() {
        SoftAssertions soft = new SoftAssertions();
        for (Scenario s : List.of(Scenario.slow(10, 0.10).planted(1.2), Scenario.slow(10, 0.10).planted(1.5),
                Scenario.stalls("stalls of 30 ms, one every 5 s on average, on both", 0.2, 30, 30, true).planted(1.2))) {
            Map<String, Integer> perFigure = new TreeMap<>();
            int found = 0;
            int wrongWay = 0;
            for (int run = 0; run < RUNS; run++) {
                List<Finding> findings = run(new Random(40_000 + run), s);
                findings.stream().filter(f -> f.behind().equals("b")).forEach(f -> perFigure.merge(f.figure(), 1, Integer::sum));
                found += findings.stream().anyMatch(f -> f.behind().equals("b")) ? 1 : 0;
                wrongWay += findings.stream().anyMatch(f -> f.behind().equals("a")) ? 1 : 0;
            }
            print(s.name() + ": runs finding b behind", found, perFigure);
            // under slow noise a window's difference is mostly the drift's: 1.2x is printed, not asserted, and 1.5x is
            // found in about half the windows (docs/verdict.md); under stalls, 1.2x in all
            int least = s.tau() == 0 ? RUNS * 19 / 20 : s.bFactor() >= 1.5 ? RUNS / 4 : 0;
            soft.assertThat(found).as("%s: runs finding b behind, of %d", s.name(), RUNS).isGreaterThanOrEqualTo(least);
            soft.assertThat(wrongWay).as("%s: runs putting a behind", s.name()).isZero();
        }
        soft.assertAll();
    }

    @Test
    @DisplayName("a report read every 5 s while its 60 s window fills: at most 1 of 20 A/A runs with a finding at any look")
    void continuousReading() {
        SoftAssertions soft = new SoftAssertions();
        for (Scenario s : List.of(Scenario.slow(0, 0), Scenario.slow(10, 0.15), STALLS.get(1))) {
            int runsWithFinding = 0;
            int looksWithFinding = 0;
            int looks = 0;
            int decided = 0;
            for (int run = 0; run < RUNS; run++) {
                List<ComparisonReport> reports = looks(new Random(60_000 + run), s, 5);
                boolean any = false;
                for (ComparisonReport r : reports) {
                    looks++;
                    decided += r.decided() ? 1 : 0;
                    boolean found = r.verdict().significant();
                    looksWithFinding += found ? 1 : 0;
                    any |= found;
                }
                runsWithFinding += any ? 1 : 0;
            }
            System.out.printf(Locale.ROOT, "%s, read every 5 s: %d of %d runs with a finding at any look (%.1f%%); %d of %d "
                    + "looks (%.2f%%); %d looks decided%n", s.tau() == 0 && s.stallsPerSecond() == 0 ? "A/A" : s.name(),
                    runsWithFinding, RUNS, 100.0 * runsWithFinding / RUNS, looksWithFinding, looks,
                    100.0 * looksWithFinding / looks, decided);
            soft.assertThat(runsWithFinding).as("%s: runs with a finding at any look, of %d", s.name(), RUNS)
                    .isLessThanOrEqualTo(RUNS / 20);
            soft.assertThat(decided).as("%s: looks at the full window", s.name()).isEqualTo(RUNS);
            int sliding = 0;
            for (int run = 0; run < RUNS; run++) {
                List<ComparisonReport> later = looks(new Random(80_000 + run), s, 5, 2 * SECONDS);
                sliding += later.subList(later.size() / 2 - 1, later.size()).stream().anyMatch(r -> r.verdict().significant())
                        ? 1 : 0;
            }
            System.out.printf(Locale.ROOT, "%s, the window full and sliding, read every 5 s from 60 to 120 s (13 looks): %d "
                    + "of %d runs with a finding at any look%n", s.tau() == 0 && s.stallsPerSecond() == 0 ? "A/A" : s.name(),
                    sliding, RUNS);
            ComparisonReport first = looks(new Random(60_000), s, 5).get(0);
            soft.assertThat(first.decided()).as("the first look").isFalse();
            soft.assertThat(first.horizon().z()).as("its level").isCloseTo(2.807 * Math.sqrt(12), within(1e-9));
            soft.assertThat(first.toTable()).contains("(not yet decided) 5 s of 60 s judged: judged at z = 9.72, not 2.81");
            soft.assertThat(first.toJson()).contains("\"decided\":false,\"judgedSeconds\":5,\"horizonSeconds\":60,\"z\":9.72");
        }
        soft.assertAll();
    }

    private static void assertAtMostOneIn20(List<Scenario> scenarios, long seed) {
        assertAtMost(scenarios, seed, RUNS / 20);
    }

    private static void assertAtMost(List<Scenario> scenarios, long seed, int most) {
        SoftAssertions soft = new SoftAssertions();
        for (Scenario s : scenarios) {
            Map<String, Integer> perFigure = new TreeMap<>();
            int withFinding = 0;
            for (int run = 0; run < RUNS; run++) {
                List<Finding> findings = run(new Random(seed + run), s);
                findings.forEach(f -> perFigure.merge(f.figure(), 1, Integer::sum));
                withFinding += findings.isEmpty() ? 0 : 1;
            }
            print("A/A, " + s.name(), withFinding, perFigure);
            soft.assertThat(withFinding).as("A/A, %s: runs with a finding, of %d", s.name(), RUNS).isLessThanOrEqualTo(most);
        }
        soft.assertAll();
    }

    /** One 60 s window of two instances; the verdict's findings. */
    static List<Finding> run(Random random, Scenario s) {
        List<ComparisonReport> reports = looks(random, s, SECONDS);
        return reports.get(reports.size() - 1).verdict().findings();
    }

    /** One 60 s window of two instances, its report read every {@code every} seconds (the last one at 60 s). */
    static List<ComparisonReport> looks(Random random, Scenario s, int every) {
        return looks(random, s, every, SECONDS);
    }

    /** {@code seconds} of two instances, the report of the last 60 s read every {@code every} seconds. */
    static List<ComparisonReport> looks(Random random, Scenario s, int every, int seconds) {
        SimulatedTraffic sim = new SimulatedTraffic(SECONDS, 0, Map.of());
        SimulatedTraffic.Process a = new SimulatedTraffic.Process(new Random(random.nextLong()), s.tau(), s.sigma(),
                s.stallsPerSecond(), s.stallMinMs(), s.stallMaxMs());
        SimulatedTraffic.Process b = new SimulatedTraffic.Process(new Random(random.nextLong()), s.tau(), s.sigma(),
                s.bothStall() ? s.stallsPerSecond() : 0, s.stallMinMs(), s.stallMaxMs());
        boolean cpu = !Double.isNaN(s.cpuRho());
        SimulatedTraffic.Cpu cpuA = cpu ? new SimulatedTraffic.Cpu(new Random(random.nextLong()), 20, s.cpuRho(), 0.2) : null;
        SimulatedTraffic.Cpu cpuB = cpu ? new SimulatedTraffic.Cpu(new Random(random.nextLong()), 20, s.cpuRho(), 0.2) : null;
        List<ComparisonReport> reports = new ArrayList<>();
        for (int second = 0; second < seconds; second++) {
            double slowA = a.nextSecond() * Math.exp(0.05 * random.nextGaussian());
            double slowB = b.nextSecond() * Math.exp(0.05 * random.nextGaussian());
            for (int i = 0; i < RATE; i++) {
                long at = second * 1_000_000L + i * 1_000_000L / RATE;
                sim.sample("a", a.stalled(at, draw(random, slowA)), a.stalled(at, draw(random, slowA)));
                sim.sample("b", b.stalled(at, Math.round(s.bFactor() * draw(random, slowB))),
                        b.stalled(at, Math.round(s.bFactor() * draw(random, slowB))));
            }
            if (cpu) {
                sim.cpu("a", cpuA.next(), 2L * RATE);
                sim.cpu("b", cpuB.next(), 2L * RATE);
            }
            sim.nextSecond();
            if ((second + 1) % every == 0) {
                reports.add(sim.engine.report("orders"));
            }
        }
        return reports;
    }

    private static long draw(Random random, double factor) {
        return Math.round(3_000 * factor * Math.exp(0.5 * random.nextGaussian()));
    }

    private static void print(String what, int runs, Map<String, Integer> perFigure) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s: %d of %d runs (%.1f%%)", what, runs, RUNS,
                100.0 * runs / RUNS));
        perFigure.forEach((figure, n) -> b.append(String.format(Locale.ROOT, "; %s %d", figure, n)));
        System.out.println(b);
    }
}
