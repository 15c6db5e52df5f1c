package io.switchboard.internal.comparison;

import static io.switchboard.internal.comparison.VerdictExplainsTailsTest.finding;
import static io.switchboard.internal.comparison.VerdictExplainsTailsTest.lognormal;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import io.switchboard.spi.EventKinds;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An event explains a tail against a baseline (issue 87), on seeded simulated traffic whose cause is known: a span over
 * most of the window holds most of a tail that is heavier all the time and is not named; pauses on both instances are
 * not named for the difference between them; the figure without the events is judged by the verdict's rule.
 */
@DisplayName("An event explains a tail only when the tail is concentrated in it")
@Timeout(60)
class TailBaselineTest {

    @Test
    @DisplayName("a span over 60% of the window on a, whose e2e tail is heavier all the time: not named, and a note says no event explains it")
    void longSpanExplainsNothing() {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
        Random random = new Random(21);
        for (int s = 0; s < 40; s++) {
            sim.span(s, "a", EventKinds.BACK_PRESSURE, "orders", "buffer full", 5, 28);
            for (int i = 0; i < 400; i++) {
                sim.sample("a", lognormal(random, 3_000), Math.round(3_000 * Math.exp(0.8 * random.nextGaussian())));
                sim.sample("b", lognormal(random, 3_000), lognormal(random, 3_000));
            }
            sim.nextSecond();
        }
        ComparisonReport report = report(sim);
        Finding p99 = finding(report, "e2e p99");
        assertThat(p99.behind()).isEqualTo("a");
        assertThat(p99.during()).as("the span is not named").isEmpty();
        String note = p99.notes().stream().filter(n -> n.contains("were in flight during a's events")).findFirst()
                .orElseThrow(() -> new AssertionError(report.toTable()));
        assertThat(note).contains("of a's e2e samples beyond p99").contains("and so were")
                .endsWith("no event explains this difference");
        int share = Integer.parseInt(note.substring(0, note.indexOf('%')));
        assertThat(share).as("at least half of the tail was in flight during the span: named without a baseline")
                .isGreaterThanOrEqualTo(50);
        double lift = Double.parseDouble(note.substring(note.indexOf("samples (") + 9, note.indexOf("x as concentrated")));
        assertThat(lift).as("the tail's share against all samples'").isLessThan(Tails.MIN_LIFT);
    }

    @Test
    @DisplayName("GC pauses on both instances slowing both tails: not named for the difference; the same pauses slowing a only: named")
    void pausesOnBothSides() {
        for (boolean both : new boolean[] {true, false}) {
            SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
            Random random = new Random(31);
            for (int s = 0; s < 40; s++) {
                boolean pause = s % 5 == 4;
                if (pause) {
                    sim.timeline.spanEverywhere(EventKinds.GC_PAUSE, "jvm", "G1 Evacuation Pause", sim.at(400), sim.at(700));
                }
                for (int i = 0; i < 400; i++) {
                    boolean hit = pause && i % 2 == 0;
                    sim.sample("a", lognormal(random, 3_000), hit ? 40_000 + random.nextInt(20_000) : lognormal(random, 3_000));
                    sim.sample("b", lognormal(random, 3_000),
                            hit && both ? 20_000 + random.nextInt(10_000) : lognormal(random, 3_000));
                }
                sim.nextSecond();
            }
            ComparisonReport report = report(sim);
            Finding p99 = finding(report, "e2e p99");
            assertThat(p99.behind()).isEqualTo("a");
            if (both) {
                assertThat(p99.during()).as("pauses on both instances").isEmpty();
                assertThat(p99.notes()).anySatisfy(n -> assertThat(n).startsWith("100% of a's e2e samples beyond p99")
                        .contains("gc-pause events happened on both instances").endsWith("no event explains this difference"));
            } else {
                assertThat(p99.during()).as("pauses whose slow samples were a's only").singleElement().asString()
                        .contains("the JVM paused for garbage collection").contains("as concentrated")
                        .contains("with all 8 such events of a's in the window")
                        .contains("without the samples in flight during all 8 (on both instances)");
            }
        }
    }

    @Test
    @DisplayName("the figure without the rebalance is judged by the verdict's rule: a's remaining tail in bursts is no significant difference")
    void withoutIsJudgedByTheRule() {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
        Random random = new Random(41);
        Histogram restA = new Histogram(2); // the samples not in flight during the rebalance (seconds 20 to 22)
        Histogram restB = new Histogram(2);
        for (int s = 0; s < 40; s++) {
            sim.rebalance(s, "a", "billing", 20, 22);
            boolean stalled = s >= 20 && s <= 22;
            boolean burst = s % 8 == 3; // a's client stalls 30 deliveries for about 13 ms, five times
            for (int i = 0; i < 400; i++) {
                long a = stalled ? 1_500_000 + random.nextInt(1_000_000)
                        : burst && i < 30 ? 12_000 + random.nextInt(2_000) : lognormal(random, 3_000);
                long b = lognormal(random, 3_000);
                sim.sample("a", lognormal(random, 3_000), a);
                sim.sample("b", lognormal(random, 3_000), b);
                if (!stalled) {
                    restA.recordValue(a);
                    restB.recordValue(b);
                }
            }
            sim.nextSecond();
        }
        ComparisonReport report = report(sim);
        Finding p99 = finding(report, "e2e p99");
        assertThat(p99.behind()).isEqualTo("a");
        String during = p99.during().get(0);
        double va = ComparisonEngine.ms(restA.getValueAtPercentile(99));
        double vb = ComparisonEngine.ms(restB.getValueAtPercentile(99));
        assertThat(ComparisonEngine.differs(va, ComparisonEngine.interval(restA, 0.99), vb,
                ComparisonEngine.interval(restB, 0.99), 0.10))
                .as("independent-sample intervals would call a's remaining p99 (%.2f ms vs %.2f ms) a difference", va, vb)
                .isTrue();
        assertThat(during).contains("group billing rebalanced on a")
                .contains(String.format(java.util.Locale.ROOT, "a's e2e p99 is %.2f ms and b's %.2f ms", va, vb))
                .contains("by the verdict's rule").endsWith(": no significant difference");
    }

    @Test
    @DisplayName("one connection blip of 50 failed publishes on b weighs as a burst, not as 50 independent failures; the same 50 spread over the seconds are a finding")
    void errorBurstIsOneBurst() {
        for (boolean burst : new boolean[] {true, false}) {
            SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
            Random random = new Random(51);
            for (int s = 0; s < 40; s++) {
                for (int i = 0; i < 400; i++) {
                    sim.sample("a", lognormal(random, 3_000), lognormal(random, 3_000));
                    sim.sample("b", lognormal(random, 3_000), lognormal(random, 3_000));
                    if ((s * 400 + i) % 1000 == 0) { // 0.1% of both instances' publishes fail
                        sim.publishFailed("a");
                        sim.publishFailed("b");
                    }
                }
                for (int k = 0; k < (burst ? (s == 17 ? 50 : 0) : (s % 4 == 0 ? 2 : 1)); k++) {
                    sim.publishFailed("b");
                }
                sim.nextSecond();
            }
            // the 40 s of traffic judged as a full window: decided, at the verdict's own level
            ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(40));
            System.out.print(report.toTable());
            assertThat(report.decided()).as("the window is full").isTrue();
            long failed = report.instances().get(1).publishFailed();
            assertThat(failed).as("b's failed publishes").isEqualTo(66);
            if (burst) {
                assertThat(report.verdict().findings()).as("one burst of 50 in one second")
                        .noneMatch(f -> f.figure().equals("error rate"));
            } else {
                assertThat(finding(report, "error rate").behind()).isEqualTo("b");
            }
        }
    }

    private static ComparisonReport report(SimulatedTraffic sim) {
        ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(60));
        System.out.print(report.toTable());
        return report;
    }
}
