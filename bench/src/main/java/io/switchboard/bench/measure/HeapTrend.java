package io.switchboard.bench.measure;

import java.util.List;

/**
 * Heap used after forced full GCs over the measured phase.
 *
 * @param probes how many probes were taken (0: none asked for)
 * @param startMiB the first probe, MiB
 * @param endMiB the last probe, MiB
 * @param slopeMiBPerMinute least-squares slope through all probes, MiB per minute
 */
public record HeapTrend(int probes, double startMiB, double endMiB, double slopeMiBPerMinute) {

    /** No probes. */
    public static final HeapTrend NONE = new HeapTrend(0, Double.NaN, Double.NaN, Double.NaN);

    /** The trend through (minutes, MiB) points. */
    public static HeapTrend of(List<double[]> points) {
        if (points.isEmpty()) {
            return NONE;
        }
        int n = points.size();
        double slope = Double.NaN;
        if (n >= 2) {
            double mx = 0;
            double my = 0;
            for (double[] p : points) {
                mx += p[0] / n;
                my += p[1] / n;
            }
            double sxy = 0;
            double sxx = 0;
            for (double[] p : points) {
                sxy += (p[0] - mx) * (p[1] - my);
                sxx += (p[0] - mx) * (p[0] - mx);
            }
            slope = sxx == 0 ? Double.NaN : sxy / sxx;
        }
        return new HeapTrend(n, points.get(0)[1], points.get(n - 1)[1], slope);
    }
}
