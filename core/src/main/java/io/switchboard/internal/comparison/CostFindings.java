package io.switchboard.internal.comparison;

import io.switchboard.routing.ComparisonReport.Finding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Judges the instances' client CPU per message. Its samples are the window's seconds: each second in which an instance
 * carried at least {@value #MIN_MESSAGES} messages gives one figure (its client's CPU in that second over the messages
 * it published and consumed). Two instances, each with at least {@value #MIN_SECONDS} such seconds, are compared by
 * their medians with the Mann-Whitney rank-sum test, its z taken down by the seconds' dependence ({@link #dependence}):
 * one is ahead when |z| passes the report's level ({@link ComparisonEngine#level}, 2.807 at the full window) and the medians
 * differ by at least the comparison's {@code minDifference} of the larger one. Ranks, not means: a second's figure has a
 * long upper tail (one sampled publish call that the host preempts counts {@link ClientCost#SAMPLE_EVERY} times), and a
 * CI run's instance without extra cost averaged 60 us against about 15 us on a quiet machine, and Welch's t-test on the
 * means missed the other instance's 50 us a message more. The readings are this process's (a fleet report judges cost
 * on the local replica's seconds).
 */
final class CostFindings {

    /** Seconds with fewer messages are left out: their figure is mostly the client's idle cost. */
    static final int MIN_MESSAGES = 10;
    /** Seconds each instance needs before its cost is judged. */
    static final int MIN_SECONDS = 10;

    private CostFindings() {}

    /**
     * Per instance, the CPU microseconds per message of each second from its {@code from} (the window's start, or the end
     * of its warm-up) to {@code to} that carried enough messages.
     */
    static Map<String, double[]> samples(TrafficBook book, List<String> instances, Map<String, Long> fromOf, long to) {
        Map<String, double[]> out = new LinkedHashMap<>();
        List<TrafficStats> all = book.all();
        for (String instance : instances) {
            long from = fromOf.get(instance);
            ClientCost.Account account = book.cost().find(instance);
            List<Double> figures = new ArrayList<>();
            for (long s = from; account != null && s <= to; s++) {
                long[] cost = account.delta(s);
                long messages = 0;
                for (TrafficStats t : all) {
                    messages += t.instance.equals(instance) ? t.messages(s, s) : 0;
                }
                if (cost != null && messages >= MIN_MESSAGES) {
                    figures.add(cost[0] / 1000.0 / messages);
                }
            }
            out.put(instance, figures.stream().mapToDouble(Double::doubleValue).toArray());
        }
        return out;
    }

    /** Judges a against b at the 99% level; returns 1 when judged (a finding is added when one is ahead). */
    static int judge(String a, double[] sa, String b, double[] sb, double minDifference, List<Finding> findings,
            List<String> notJudged, Map<String, Integer> wins) {
        return judge(a, sa, b, sb, minDifference, ComparisonEngine.Z99, findings, notJudged, wins, List.of());
    }

    /**
     * Judges a against b, |z| past {@code level} (the report's, {@link ComparisonEngine#level}); returns 1 when judged
     * (a finding is added when one is ahead, carrying {@code notes}: what else sets the two apart, such as the batch
     * sizes their clients sent). The rank-sum's z is taken down by the seconds' dependence ({@link #dependence}).
     */
    static int judge(String a, double[] sa, String b, double[] sb, double minDifference, double level,
            List<Finding> findings, List<String> notJudged, Map<String, Integer> wins, List<String> notes) {
        String figure = "client CPU per message";
        if (!ClientCost.measured()) {
            return 0;
        }
        if (sa.length < MIN_SECONDS || sb.length < MIN_SECONDS) {
            if (sa.length > 0 || sb.length > 0) {
                notJudged.add(String.format(Locale.ROOT, "%s: %s has %d and %s has %d seconds with at least %d messages; needs "
                        + "%d each", figure, a, sa.length, b, sb.length, MIN_MESSAGES, MIN_SECONDS));
            }
            return 0;
        }
        double ma = median(sa);
        double mb = median(sb);
        double z = rankSumZ(sa, sb) / Math.sqrt(dependence(sa, sb));
        double larger = Math.max(ma, mb);
        // the ranks and the medians must agree on who is lower (z < 0: a's seconds rank lower)
        if (Math.abs(z) > level && (z < 0) == (ma < mb) && larger > 0
                && Math.abs(ma - mb) / larger >= minDifference) {
            boolean aAhead = ma < mb;
            String ahead = aAhead ? a : b;
            String behind = aAhead ? b : a;
            double good = Math.min(ma, mb);
            findings.add(new Finding(figure, ahead, behind, good, larger, String.format(Locale.ROOT,
                    "%s is ahead on %s by %.0f%% (%.1f us vs %.1f us, medians of %d and %d seconds, rank-sum z = %.1f)",
                    ahead, figure, (larger - good) / larger * 100, good, larger, aAhead ? sa.length : sb.length,
                    aAhead ? sb.length : sa.length, Math.abs(z)), List.of(), List.of(), notes));
            wins.merge(ahead, 1, Integer::sum);
        }
        return 1;
    }

    /**
     * {@return how many times the rank-sum's variance the seconds' dependence makes it, at least 1} A client's CPU per
     * second drifts (a JIT's compilation, a collector's phase, the host's other load last seconds): consecutive seconds
     * are not independent samples, and two identical instances whose seconds had a lag-1 autocorrelation of 0.8 to 0.95
     * were judged apart in 30% to 65% of 60 s windows when they were taken as such (docs/verdict.md). Under no
     * difference, the rank-sum is about a sum of each side's ranks, so its variance grows by each side's variance
     * factor of a mean of its ranks, weighted by the other side's count: (n_b f_a + n_a f_b) / (n_a + n_b). A side's
     * factor is that of an AR(1) series of n seconds, 1 + 2 sum_k (1 - k/n) rho^k, with rho the lag-1 autocorrelation of
     * its ranks in the pooled sample, in time order, corrected for its bias in a short series ((1 + 4 rho) / n, Kendall)
     * and kept within [0, 0.99].
     */
    static double dependence(double[] a, double[] b) {
        double[] ranks = ranks(a, b);
        double fa = ComparisonEngine.ar1Factor(ComparisonEngine.lag1(ranks, 0, a.length), a.length);
        double fb = ComparisonEngine.ar1Factor(ComparisonEngine.lag1(ranks, a.length, b.length), b.length);
        double factor = (b.length * fa + a.length * fb) / (a.length + b.length);
        return Math.max(1, factor);
    }

    /** {@return the ranks of a's then b's figures in the pooled sample, ties at their mean rank} */
    private static double[] ranks(double[] a, double[] b) {
        int n = a.length + b.length;
        Integer[] order = new Integer[n];
        double[] all = new double[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
            all[i] = i < a.length ? a[i] : b[i - a.length];
        }
        Arrays.sort(order, Comparator.comparingDouble(i -> all[i]));
        double[] ranks = new double[n];
        for (int i = 0; i < n; ) {
            int j = i;
            while (j + 1 < n && all[order[j + 1]] == all[order[i]]) {
                j++;
            }
            for (int k = i; k <= j; k++) {
                ranks[order[k]] = (i + j) / 2.0 + 1;
            }
            i = j + 1;
        }
        return ranks;
    }

    /**
     * {@return the Mann-Whitney z of a's seconds against b's: negative when a's rank lower} Ties share their mean rank
     * and the variance is corrected for them; 0 when every figure is the same.
     */
    static double rankSumZ(double[] a, double[] b) {
        int n = a.length + b.length;
        double[][] all = new double[n][];
        for (int i = 0; i < n; i++) {
            all[i] = new double[] {i < a.length ? a[i] : b[i - a.length], i < a.length ? 1 : 0};
        }
        Arrays.sort(all, Comparator.comparingDouble(x -> x[0]));
        double rankSumA = 0;
        double ties = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j + 1 < n && all[j + 1][0] == all[i][0]) {
                j++;
            }
            double rank = (i + j) / 2.0 + 1;
            for (int k = i; k <= j; k++) {
                rankSumA += all[k][1] * rank;
            }
            double t = j - i + 1;
            ties += t * t * t - t;
            i = j + 1;
        }
        double u = rankSumA - a.length * (a.length + 1) / 2.0;
        double mean = a.length * (double) b.length / 2;
        double variance = a.length * (double) b.length / 12.0 * ((n + 1) - ties / ((double) n * (n - 1)));
        return variance <= 0 ? 0 : (u - mean) / Math.sqrt(variance);
    }

    private static double median(double[] v) {
        double[] sorted = v.clone();
        Arrays.sort(sorted);
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }
}
