package io.switchboard.internal.comparison;

import static io.switchboard.internal.comparison.VerdictExplainsTailsTest.finding;
import static io.switchboard.internal.comparison.VerdictExplainsTailsTest.lognormal;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Request-to-reply latency in the verdict (issue 86), on simulated traffic whose truth is known: judged by the rule of
 * the other latencies, its tail explained by the instance's events, time-outs judged as a rate; nothing said of
 * requests where none were made.
 */
@DisplayName("The verdict judges request-to-reply latency and time-outs per instance")
@Timeout(60)
class RequestVerdictTest {

    @Test
    @DisplayName("two identical instances: request p50 and p99 judged, no finding")
    void aa() {
        ComparisonReport report = simulated(3, 30, true, 1.0, 0);
        assertThat(report.verdict().findings()).as(report.toTable()).isEmpty();
        assertThat(report.verdict().notJudged()).noneMatch(n -> n.startsWith("request p50") || n.startsWith("request p99:"));
        assertThat(report.verdict().summary()).contains("no significant difference");
        assertThat(report.toTable()).contains("| request p50 / p99 / p99.9 (ms) |")
                .contains("| requests replied / timed out / failed | 12000 / 0 / 0 | 12000 / 0 / 0 |");
    }

    @Test
    @DisplayName("b's replies 30% slower and 5% of its requests timed out: b is behind on request p50, p99 and timeout rate")
    void planted() {
        ComparisonReport report = simulated(5, 30, true, 1.3, 20);
        for (String figure : List.of("request p50", "request p99", "request timeout rate")) {
            Finding f = finding(report, figure);
            assertThat(f.behind()).as(figure).isEqualTo("b");
            assertThat(f.text()).startsWith("a is ahead on " + figure);
            assertThat(f.explanations()).as("no setting is offered for a request figure").isEmpty();
        }
        assertThat(report.verdict().findings()).as("publish and e2e were the same on both")
                .allMatch(f -> f.figure().startsWith("request"));
        ComparisonReport.Requests b = report.instances().get(1).requests();
        assertThat(b.replies()).isEqualTo(12_000);
        assertThat(b.timeouts()).isEqualTo(600);
        assertThat(b.timeoutRate()).isEqualTo(600.0 / 12_600);
        assertThat(report.toJson()).contains("\"requests\":{\"replies\":12000,\"timeouts\":600,\"failures\":0,")
                .contains("\"figure\":\"request p99\"");
    }

    @Test
    @DisplayName("a rebalance's stall of b's replies: the request p99 finding names it")
    void rebalanceExplainsTheRequestTail() {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
        Random random = new Random(9);
        for (int s = 0; s < 30; s++) {
            sim.rebalance(s, "b", "pricing", 15, 17);
            for (int i = 0; i < 400; i++) {
                sim.sample("a", lognormal(random, 2_000), lognormal(random, 2_000));
                sim.sample("b", lognormal(random, 2_000), lognormal(random, 2_000));
                sim.reply("a", lognormal(random, 4_000));
                sim.reply("b", s >= 15 && s <= 17 ? 1_000_000 + random.nextInt(500_000) : lognormal(random, 4_000));
            }
            sim.nextSecond();
        }
        ComparisonReport report = report(sim);
        Finding p99 = finding(report, "request p99");
        assertThat(p99.behind()).isEqualTo("b");
        assertThat(p99.during()).singleElement().asString()
                .contains("of b's request samples beyond p99")
                .contains("group pricing rebalanced on b")
                .contains("no significant difference");
    }

    @Test
    @DisplayName("a replica shares its requests on the fleet bus after its traffic: counts and latencies arrive whole")
    void fleetSharesRequests() throws Exception {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
        long second = sim.millis.get() / 1000;
        for (int i = 0; i < 100; i++) {
            sim.sample("a", 1_000, 1_000);
            sim.reply("a", 4_000);
        }
        sim.timeout("b"); // b carried no publish in that second: its requests travel all the same
        sim.nextSecond();
        FleetTraffic fleet = new FleetTraffic(60);
        byte[] shared = FleetTraffic.encode(sim.book, second - 1, second);
        fleet.received("r2", new DataInputStream(new ByteArrayInputStream(shared)));
        Map<String, TrafficStats.Window> out = Map.of("a", new TrafficStats.Window(), "b", new TrafficStats.Window());
        fleet.addTo(out, "orders", second, second, 0, (instance, destination) -> Long.MAX_VALUE);
        assertThat(out.get("a").published).isEqualTo(100);
        assertThat(out.get("a").replies).isEqualTo(100);
        assertThat(out.get("a").requestLatency.getTotalCount()).isEqualTo(100);
        assertThat(out.get("a").requestLatency.getValueAtPercentile(50))
                .isEqualTo(out.get("a").requestLatency.highestEquivalentValue(4_000));
        assertThat(out.get("b").requestTimeouts).isEqualTo(1);
        assertThat(out.get("b").requests()).isEqualTo(1);
    }

    @Test
    @DisplayName("no requests: the report says nothing of requests")
    void noRequests() {
        ComparisonReport report = simulated(1, 10, false, 1.0, 0);
        assertThat(report.toTable()).doesNotContainIgnoringCase("request");
        assertThat(report.toJson()).doesNotContainIgnoringCase("request");
        assertThat(report.instances()).allMatch(i -> i.requests().equals(ComparisonReport.Requests.NONE));
    }

    /**
     * The report of {@code seconds} of simulated traffic (seeded): 400 publishes and deliveries a second on each
     * instance (log-normal, median 3 ms) and, with {@code requests}, as many replies (median 4 ms), b's {@code bFactor}
     * times slower; every {@code bTimeoutEvery}-th of b's requests (0: none) timed out besides.
     */
    private static ComparisonReport simulated(long seed, int seconds, boolean requests, double bFactor, int bTimeoutEvery) {
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of());
        Random random = new Random(seed);
        for (int s = 0; s < seconds; s++) {
            for (int i = 0; i < 400; i++) {
                sim.sample("a", lognormal(random, 3_000), lognormal(random, 3_000));
                sim.sample("b", lognormal(random, 3_000), lognormal(random, 3_000));
                if (requests) {
                    sim.reply("a", lognormal(random, 4_000));
                    sim.reply("b", Math.round(lognormal(random, 4_000) * bFactor));
                }
                if (bTimeoutEvery > 0 && i % bTimeoutEvery == 0) {
                    sim.timeout("b");
                }
            }
            sim.nextSecond();
        }
        return report(sim);
    }

    /** The report of the simulated window, printed. */
    private static ComparisonReport report(SimulatedTraffic sim) {
        ComparisonReport report = sim.engine.report("orders", Duration.ofSeconds(60));
        System.out.print(report.toTable());
        return report;
    }
}
