package io.switchboard.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LatencyRecorderTest {

    @Test
    @DisplayName("values recorded by several threads are merged into one distribution")
    void mergesThreads() throws InterruptedException {
        LatencyRecorder recorder = new LatencyRecorder();
        int threads = 4;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int offset = t;
            new Thread(() -> {
                for (int v = 1; v <= 1_000; v++) {
                    recorder.record(v * 4L - offset); // the four threads together record 1..4000 once each
                }
                done.countDown();
            }).start();
        }
        done.await();
        Histogram total = recorder.total();
        assertThat(total.getTotalCount()).isEqualTo(4_000);
        assertThat(total.getMaxValue()).isBetween(3_998L, 4_002L);
        assertThat(total.getValueAtPercentile(50)).isBetween(1_995L, 2_005L);
    }

    @Test
    @DisplayName("an interval holds what came since the last one; the total keeps everything")
    void intervalsAndTotal() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(100);
        recorder.record(200);
        assertThat(recorder.interval().getTotalCount()).isEqualTo(2);
        recorder.record(300);
        assertThat(recorder.interval().getTotalCount()).isEqualTo(1);
        assertThat(recorder.total().getTotalCount()).isEqualTo(3);
    }

    @Test
    @DisplayName("merging histograms adds their counts and keeps the extremes")
    void mergeHistograms() {
        List<Histogram> parts = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            Histogram h = LatencyRecorder.newHistogram();
            for (int v = 1; v <= 100; v++) {
                h.recordValue(v + p * 100L);
            }
            parts.add(h);
        }
        Histogram merged = LatencyRecorder.merge(parts);
        assertThat(merged.getTotalCount()).isEqualTo(300);
        assertThat(merged.getMinValue()).isEqualTo(1);
        assertThat(merged.getMaxValue()).isEqualTo(300);
        Percentiles p = Percentiles.of(merged);
        assertThat(p.p50()).isEqualTo(0.150);
        assertThat(p.max()).isEqualTo(0.300);
    }

    @Test
    @DisplayName("values out of range are clamped, not lost")
    void clamps() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(-5);
        recorder.record(Long.MAX_VALUE);
        Histogram total = recorder.total();
        assertThat(total.getTotalCount()).isEqualTo(2);
        assertThat(total.getMinValue()).isEqualTo(1);
    }
}
