package io.switchboard.bench.run;

import io.switchboard.bench.driver.ReceiveListener;
import io.switchboard.bench.measure.BenchClock;
import io.switchboard.bench.measure.LatencyRecorder;
import io.switchboard.bench.measure.Percentiles;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * The counters and histograms of one run. A message belongs to the measured phase when its
 * timestamp (its intended send time) is at or after {@link #measureStartMicros}: producers and
 * consumers classify it by the same number, so the warm-up never leaks into the figures.
 */
final class RunStats implements ReceiveListener {

    volatile long measureStartMicros = Long.MAX_VALUE;
    final LongAdder sent = new LongAdder();
    final LongAdder acked = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder received = new LongAdder();
    final LongAdder ackedAll = new LongAdder();
    final LongAdder receivedAll = new LongAdder();
    final AtomicLong outstanding = new AtomicLong();
    final AtomicLong lastAckMicros = new AtomicLong();
    final AtomicLong lastReceiveMicros = new AtomicLong();
    final LatencyRecorder endToEnd = new LatencyRecorder();
    final LatencyRecorder publishLatency = new LatencyRecorder();
    final LatencyRecorder publishDelay = new LatencyRecorder();
    private final LatencyRecorder endToEndSeries = new LatencyRecorder();
    private final List<Sample> samples = new ArrayList<>();
    private final List<long[]> measuredCounts = new ArrayList<>();
    private long lastSampleNanos = System.nanoTime();
    private long lastAcked;
    private long lastReceived;
    volatile String firstError;

    /** Sets when measuring begins, before the first message is sent. */
    void begin(long measureStartMicros, long firstSampleNanos) {
        this.measureStartMicros = measureStartMicros;
        this.lastSampleNanos = firstSampleNanos;
    }

    @Override
    public void received(long sendMicros, int payloadSize) {
        long now = BenchClock.nowMicros();
        receivedAll.increment();
        endToEndSeries.record(now - sendMicros);
        if (sendMicros >= measureStartMicros) {
            received.increment();
            endToEnd.record(now - sendMicros);
            lastReceiveMicros.accumulateAndGet(now, Math::max);
        }
    }

    void acknowledged(long sendMicros, long sentNanos, Throwable error) {
        outstanding.decrementAndGet();
        boolean measured = sendMicros >= measureStartMicros;
        if (error != null) {
            if (firstError == null) {
                firstError = error.toString();
            }
            if (measured) {
                failed.increment();
            }
            return;
        }
        ackedAll.increment();
        if (measured) {
            long now = System.nanoTime();
            acked.increment();
            publishLatency.record((now - sentNanos) / 1_000);
            lastAckMicros.accumulateAndGet(BenchClock.toMicros(now), Math::max);
        }
    }

    /** Takes one sample of throughput and latency; called about once a second from one thread. */
    synchronized Sample sample() {
        long now = System.nanoTime();
        double seconds = Math.max(1e-3, (now - lastSampleNanos) / 1e9);
        long ackedNow = ackedAll.sum();
        long receivedNow = receivedAll.sum();
        Histogram interval = endToEndSeries.interval();
        Sample sample = new Sample((BenchClock.toMicros(now) - measureStartMicros) / 1e6,
                (ackedNow - lastAcked) / seconds, (receivedNow - lastReceived) / seconds,
                interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(99) / 1000d);
        if (BenchClock.toMicros(lastSampleNanos) >= measureStartMicros) {
            measuredCounts.add(new long[] {ackedNow - lastAcked, receivedNow - lastReceived, now - lastSampleNanos});
        }
        lastSampleNanos = now;
        lastAcked = ackedNow;
        lastReceived = receivedNow;
        samples.add(sample);
        return sample;
    }

    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /**
     * The coefficient of variation of the per-interval rate over the measured intervals, leaving
     * out the last one (producers stop inside it): column 0 publish, 1 consume.
     */
    synchronized double cv(int column) {
        List<Double> rates = new ArrayList<>();
        for (long[] c : measuredCounts) {
            rates.add(c[column] / (c[2] / 1e9));
        }
        int usable = measuredCounts.size() - 1;
        if (usable < 2) {
            return 0;
        }
        List<Double> used = rates.subList(0, usable);
        double mean = used.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        if (mean == 0) {
            return 0;
        }
        double variance = used.stream().mapToDouble(r -> (r - mean) * (r - mean)).sum() / (used.size() - 1);
        return Math.sqrt(variance) / mean;
    }

    static double rate(long count, long fromMicros, long toMicros) {
        return toMicros > fromMicros ? count / ((toMicros - fromMicros) / 1e6) : 0;
    }

    static Percentiles summary(LatencyRecorder recorder) {
        return Percentiles.of(recorder.total());
    }
}
