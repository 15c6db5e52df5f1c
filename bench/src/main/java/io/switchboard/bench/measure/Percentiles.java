package io.switchboard.bench.measure;

import org.HdrHistogram.Histogram;

/**
 * A latency distribution's summary, in milliseconds.
 *
 * @param count values recorded
 * @param mean the mean
 * @param p50 the median
 * @param p75 75th percentile
 * @param p95 95th percentile
 * @param p99 99th percentile
 * @param p999 99.9th percentile
 * @param max the largest value
 */
public record Percentiles(long count, double mean, double p50, double p75, double p95, double p99, double p999, double max) {

    /** No values. */
    public static final Percentiles EMPTY = new Percentiles(0, 0, 0, 0, 0, 0, 0, 0);

    /** Summarises a histogram of microseconds. */
    public static Percentiles of(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return EMPTY;
        }
        return new Percentiles(micros.getTotalCount(), micros.getMean() / 1000d,
                ms(micros, 50), ms(micros, 75), ms(micros, 95), ms(micros, 99), ms(micros, 99.9),
                micros.getMaxValue() / 1000d);
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000d;
    }
}
