package io.switchboard.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.measure.HeapTrend;
import io.switchboard.bench.measure.Percentiles;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The per-broker headline ratio: min(published, consumed), so a growing backlog cannot pass for speed. */
class ComparisonTest {

    private static final Workload FULL_SPEED = WorkloadParser.parse("test.yaml", """
            name: full
            messageSize: 1024
            producerRate: 0
            duration: 10s
            """, name -> null, false).get(0);

    private static RunResult run(String mode, double published, double consumed) {
        return new RunResult(FULL_SPEED, "rocketmq", mode, 1000, 1000, 0, 1000, 1000, published, consumed,
                Percentiles.EMPTY, Percentiles.EMPTY, Percentiles.EMPTY, 0, 0, List.of(), HeapTrend.NONE, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null);
    }

    @Test
    @DisplayName("an SDK that publishes 2.4x native but consumes 0.8x scores 0.8x, not 2.4x")
    void consumeGapIsTheHeadline() {
        List<RunResult> results = List.of(run(BenchDriver.SDK, 48_000, 16_000), run(BenchDriver.NATIVE, 20_000, 20_000));
        Comparison.Pair pair = Comparison.pairs(results).get(0);
        assertThat(pair.publishRatio()).isCloseTo(2.4, within(1e-9));
        assertThat(pair.throughputRatio()).isCloseTo(0.8, within(1e-9));
        Comparison.BrokerSummary summary = Comparison.summary(results).get(0);
        assertThat(FULL_SPEED.maxRate()).isTrue();
        assertThat(summary.throughputRatio()).isCloseTo(0.8, within(1e-9));
        assertThat(summary.throughputRuns()).isEqualTo(1);
    }

    @Test
    @DisplayName("a native side whose consumers lag is compared on what it consumed")
    void nativeBacklogCountsToo() {
        List<RunResult> results = List.of(run(BenchDriver.SDK, 20_000, 19_000), run(BenchDriver.NATIVE, 30_000, 19_000));
        assertThat(Comparison.summary(results).get(0).throughputRatio()).isCloseTo(1.0, within(1e-9));
    }
}
