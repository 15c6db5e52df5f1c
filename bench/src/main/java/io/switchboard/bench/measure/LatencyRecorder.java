package io.switchboard.bench.measure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Records latencies in microseconds from any number of threads without contention: each thread
 * writes to its own HdrHistogram {@link SingleWriterRecorder}, and a reader merges the threads'
 * interval histograms. Values above an hour are clamped to an hour.
 */
public final class LatencyRecorder {

    /** The highest trackable value: one hour in microseconds. */
    public static final long MAX_MICROS = 3_600_000_000L;
    private static final int SIGNIFICANT_DIGITS = 3;

    private final List<SingleWriterRecorder> recorders = new CopyOnWriteArrayList<>();
    private final ThreadLocal<SingleWriterRecorder> mine = ThreadLocal.withInitial(this::register);
    private final Histogram total = newHistogram();

    /** An empty histogram with this recorder's range and precision. */
    public static Histogram newHistogram() {
        return new Histogram(1, MAX_MICROS, SIGNIFICANT_DIGITS);
    }

    private SingleWriterRecorder register() {
        SingleWriterRecorder recorder = new SingleWriterRecorder(1, MAX_MICROS, SIGNIFICANT_DIGITS);
        recorders.add(recorder);
        return recorder;
    }

    /** Records one value from the calling thread. */
    public void record(long micros) {
        mine.get().recordValue(Math.max(1, Math.min(micros, MAX_MICROS)));
    }

    /**
     * What every thread recorded since the last call, merged; also added to {@link #total()}.
     * Call from one reader thread at a time.
     */
    public synchronized Histogram interval() {
        Histogram merged = newHistogram();
        for (SingleWriterRecorder recorder : recorders) {
            merged.add(recorder.getIntervalHistogram());
        }
        total.add(merged);
        return merged;
    }

    /** Everything recorded up to the last {@link #interval()} call, plus what is recorded now. */
    public synchronized Histogram total() {
        interval();
        return total.copy();
    }

    /** Merges histograms into a new one. */
    public static Histogram merge(List<Histogram> histograms) {
        Histogram merged = newHistogram();
        histograms.forEach(merged::add);
        return merged;
    }
}
