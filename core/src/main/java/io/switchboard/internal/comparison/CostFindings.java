package io.switchboard.internal.comparison;

import io.switchboard.routing.ComparisonReport.Finding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Judges the instances' client CPU per message. Its samples are the window's seconds: each second in which an instance
 * carried at least {@value #MIN_MESSAGES} messages gives one figure (its client's CPU in that second over the messages
 * it published and consumed). Two instances are compared with Welch's t-test on those figures, each with at least
 * {@value #MIN_SECONDS} seconds: one is ahead when |t| passes the 99% level (2.576 from 30 seconds each, 3.25 below)
 * and the means differ by at least the comparison's {@code minDifference} of the larger one. The readings are this
 * process's (a fleet report judges cost on the local replica's seconds).
 */
final class CostFindings {

    /** Seconds with fewer messages are left out: their figure is mostly the client's idle cost. */
    static final int MIN_MESSAGES = 10;
    /** Seconds each instance needs before its cost is judged. */
    static final int MIN_SECONDS = 10;

    private CostFindings() {}

    /** Per instance, the CPU microseconds per message of each second {@code from..to} that carried enough messages. */
    static Map<String, double[]> samples(TrafficBook book, List<String> instances, long from, long to) {
        Map<String, double[]> out = new LinkedHashMap<>();
        List<TrafficStats> all = book.all();
        for (String instance : instances) {
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

    /** Judges a against b; returns 1 when judged (a finding is added when one is ahead). */
    static int judge(String a, double[] sa, String b, double[] sb, double minDifference, List<Finding> findings,
            List<String> notJudged, Map<String, Integer> wins) {
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
        double ma = mean(sa);
        double mb = mean(sb);
        double se = Math.sqrt(variance(sa, ma) / sa.length + variance(sb, mb) / sb.length);
        double t = se == 0 ? 0 : (ma - mb) / se;
        double level = Math.min(sa.length, sb.length) >= 30 ? ComparisonEngine.Z99 : 3.25;
        double larger = Math.max(ma, mb);
        if (Math.abs(t) > level && larger > 0 && Math.abs(ma - mb) / larger >= minDifference) {
            boolean aAhead = ma < mb;
            String ahead = aAhead ? a : b;
            String behind = aAhead ? b : a;
            double good = Math.min(ma, mb);
            findings.add(new Finding(figure, ahead, behind, good, larger, String.format(Locale.ROOT,
                    "%s is ahead on %s by %.0f%% (%.1f us vs %.1f us, means of %d and %d seconds, t = %.1f)", ahead, figure,
                    (larger - good) / larger * 100, good, larger, aAhead ? sa.length : sb.length,
                    aAhead ? sb.length : sa.length, Math.abs(t))));
            wins.merge(ahead, 1, Integer::sum);
        }
        return 1;
    }

    private static double mean(double[] v) {
        double sum = 0;
        for (double x : v) {
            sum += x;
        }
        return sum / v.length;
    }

    private static double variance(double[] v, double mean) {
        double sum = 0;
        for (double x : v) {
            sum += (x - mean) * (x - mean);
        }
        return sum / (v.length - 1);
    }
}
