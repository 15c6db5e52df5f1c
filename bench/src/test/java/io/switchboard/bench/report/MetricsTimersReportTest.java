package io.switchboard.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.measure.HeapTrend;
import io.switchboard.bench.measure.Percentiles;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The report says which latency meters an SDK run recorded into: the workload's choice, or Micrometer's Timers. */
class MetricsTimersReportTest {

    private static Workload workload(String brokerProperties) {
        return WorkloadParser.parse("test.yaml", """
                name: meters
                messageSize: 512
                producerRate: 0
                duration: 10s
                """ + brokerProperties, name -> null, false).get(0);
    }

    private static RunResult run(Workload w, String mode) {
        return new RunResult(w, "kafka", mode, 1000, 1000, 0, 1000, 1000, 1000, 1000, Percentiles.EMPTY, Percentiles.EMPTY,
                Percentiles.EMPTY, 0, 0, List.of(), HeapTrend.NONE, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null);
    }

    @Test
    @DisplayName("an SDK run on defaults says micrometer; a workload that asks for lean says lean")
    void sdkRunsNameTheirMeters() {
        assertThat(JsonReport.metricsTimers(run(workload(""), BenchDriver.SDK))).isEqualTo("micrometer");
        Workload lean = workload("""
                brokerProperties:
                  kafka:
                    switchboard.metrics.timers: lean
                """);
        assertThat(JsonReport.metricsTimers(run(lean, BenchDriver.SDK))).isEqualTo("lean");
    }
}
