package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.PerformanceSetting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verdict's explanations on traffic whose cause is known: a tail made by a rebalance names it and gives the figure
 * without it; a batching wait far smaller than the gap is not offered as its cause; an instance's first seconds are
 * left out; loads that differ by more than 2x are said.
 */
@DisplayName("The verdict explains a tail by what happened, and judges fair slices")
@Timeout(60)
class VerdictExplainsTailsTest {

    private static final Map<String, List<PerformanceSetting>> LINGER = Map.of(
            "a", List.of(PerformanceSetting.batchingWait("linger.ms", 5, "kafka.linger.ms")), "b", List.of());

    @Test
    @DisplayName("a rebalance's stall on a: the e2e p99 finding names the rebalance, no setting is its cause, and without it there is no difference")
    void rebalanceExplainsTheTail() {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, LINGER);
        Random random = new Random(7);
        for (int s = 0; s < 40; s++) {
            sim.rebalance(s, "a", "billing", 20, 22);
            for (int i = 0; i < 400; i++) {
                boolean stalled = s >= 20 && s <= 22;
                sim.sample("a", lognormal(random, 3_000), stalled ? 1_500_000 + random.nextInt(1_000_000) : lognormal(random, 3_000));
                sim.sample("b", lognormal(random, 3_000), lognormal(random, 3_000));
            }
            sim.nextSecond();
        }
        ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(60));
        System.out.print(report.toTable());
        Finding p99 = finding(report, "e2e p99");
        assertThat(p99.behind()).isEqualTo("a");
        assertThat(p99.explanations()).as("linger.ms=5 accounts for 5 of about 2,000 ms: no 'because'").isEmpty();
        assertThat(p99.notes()).anySatisfy(n -> assertThat(n).startsWith("not because of a setting: a waits up to 5 ms")
                .contains("is not explained by any setting"));
        assertThat(p99.during()).singleElement().asString()
                .contains("of a's e2e samples beyond p99")
                .contains("group billing rebalanced on a")
                .contains("after replica-2 joined")
                .contains("without the samples in flight then (on both instances)")
                .contains("no significant difference");
        int share = Integer.parseInt(p99.during().get(0).substring(0, p99.during().get(0).indexOf('%')));
        assertThat(share).as("share of a's tail in the rebalance").isGreaterThanOrEqualTo(50);
        assertThat(report.events()).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(EventKinds.REBALANCE);
            assertThat(e.open()).isFalse();
        });
        assertThat(report.toTable()).contains("      during ").contains("(event) ").contains("rebalance billing");
        assertThat(report.toJson()).contains("\"during\":[\"").contains("\"events\":[{\"instance\":\"a\"");
        assertThat(report.verdict().findings()).noneMatch(f -> f.figure().equals("e2e p50"));
    }

    @Test
    @DisplayName("a setting that accounts for at least half of a difference is offered as its cause")
    void settingThatAccountsForMost() {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, LINGER);
        Random random = new Random(11);
        for (int s = 0; s < 20; s++) {
            for (int i = 0; i < 400; i++) {
                sim.sample("a", 2_000 + 4_000 + random.nextInt(500), 2_000 + 4_000 + random.nextInt(500));
                sim.sample("b", 2_000 + random.nextInt(500), 2_000 + random.nextInt(500));
            }
            sim.nextSecond();
        }
        ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(60));
        Finding p50 = finding(report, "e2e p50");
        assertThat(p50.explanations()).singleElement().asString().contains("accounts for at most 4");
        assertThat(p50.notes()).isEmpty();
    }

    @Test
    @DisplayName("an instance's first seconds are left out by the warm-up; at loads 8x apart latency is not judged, errors are")
    void warmUpAndLoads() {
        for (long warmUp : new long[] {0, 5}) {
            SimulatedTraffic sim = new SimulatedTraffic(60, warmUp, Map.of());
            Random random = new Random(3);
            for (int s = 0; s < 30; s++) {
                for (int i = 0; i < 400; i++) { // a: its first 3 s slow (connection, JIT), then twice as fast as b
                    sim.sample("a", s < 3 ? 40_000 : lognormal(random, 3_000), s < 3 ? 40_000 : lognormal(random, 3_000));
                }
                for (int i = 0; i < 50; i++) {
                    sim.sample("b", lognormal(random, 6_000), lognormal(random, 6_000));
                }
                for (int i = 0; i < 5; i++) { // about 9% of b's publishes fail
                    sim.publishFailed("b");
                }
                sim.nextSecond();
            }
            ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(30)); // the 30 s run, decided
            System.out.print(report.toTable());
            double aP99 = report.instances().get(0).endToEnd().p99();
            if (warmUp == 0) {
                assertThat(aP99).as("a's e2e p99 with its slow start").isGreaterThan(39.0);
                assertThat(report.verdict().notes()).noneMatch(n -> n.contains("are left out"));
            } else {
                assertThat(aP99).as("a's e2e p99 without its slow start").isLessThan(20.0);
                assertThat(report.verdict().notes()).anySatisfy(n -> assertThat(n).startsWith("a's first 5 s of traffic")
                        .contains("4000 messages"));
                assertThat(report.instances().get(0).publishRate()).as("a's rate over its judged seconds").isEqualTo(400.0);
            }
            // a is twice as fast, but at 8x b's load: its latency is not judged against b's, b's failures still are
            assertThat(report.verdict().findings()).extracting(Finding::figure).containsExactly("error rate");
            assertThat(finding(report, "error rate").behind()).isEqualTo("b");
            assertThat(report.verdict().notJudged()).anySatisfy(n -> assertThat(n)
                    .startsWith("latency and client CPU per message between a and b: measured at different loads: a carried")
                    .contains("(8.0x)").contains("split 50/50 over a new window"));
            assertThat(report.verdict().notes()).anySatisfy(n -> assertThat(n).startsWith("a carried 8.0x b's load")
                    .contains("not judged").contains("Route.split(Map.of(\"a\", 50, \"b\", 50)).perMessage()"));
            assertThat(report.verdict().summary()).isEqualTo("a ahead on 1 of 2 judged figure(s)");
        }
    }

    static long lognormal(Random random, long medianMicros) {
        return Math.round(medianMicros * Math.exp(0.5 * random.nextGaussian()));
    }

    static Finding finding(ComparisonReport report, String figure) {
        return report.verdict().findings().stream().filter(f -> f.figure().equals(figure)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding on " + figure + " in " + report.toTable()));
    }
}
