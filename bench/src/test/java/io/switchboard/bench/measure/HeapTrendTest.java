package io.switchboard.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HeapTrendTest {

    @Test
    @DisplayName("the slope is the least-squares line through the probes, in MiB per minute")
    void leastSquaresSlope() {
        HeapTrend trend = HeapTrend.of(List.of(new double[] {0, 60}, new double[] {1, 61}, new double[] {2, 63},
                new double[] {3, 63}));
        assertThat(trend.probes()).isEqualTo(4);
        assertThat(trend.startMiB()).isEqualTo(60);
        assertThat(trend.endMiB()).isEqualTo(63);
        assertThat(trend.slopeMiBPerMinute()).isCloseTo(1.1, within(1e-9));
    }

    @Test
    @DisplayName("no probes, or one, give no slope")
    void tooFewProbes() {
        assertThat(HeapTrend.of(List.of())).isEqualTo(HeapTrend.NONE);
        HeapTrend one = HeapTrend.of(List.<double[]>of(new double[] {0, 50}));
        assertThat(one.probes()).isEqualTo(1);
        assertThat(one.slopeMiBPerMinute()).isNaN();
    }

    @Test
    @DisplayName("probes run from the start to the end of the measured phase, both included")
    void probesStartAndEnd() throws InterruptedException {
        HeapProbe probe = new HeapProbe(Duration.ofMillis(100));
        long start = System.nanoTime();
        probe.start(start, start + Duration.ofMillis(250).toNanos());
        HeapTrend trend = probe.finish(Duration.ofSeconds(30));
        // at 0, 100, 200 and the end at 250 ms
        assertThat(trend.probes()).isEqualTo(4);
        assertThat(trend.startMiB()).isPositive();
    }

    @Test
    @DisplayName("an interval of zero takes no probes")
    void off() throws InterruptedException {
        HeapProbe probe = new HeapProbe(Duration.ZERO);
        probe.start(System.nanoTime(), System.nanoTime() + 1_000_000);
        assertThat(probe.finish(Duration.ofSeconds(1))).isEqualTo(HeapTrend.NONE);
    }
}
