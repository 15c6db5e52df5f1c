package io.switchboard.internal.comparison;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The traffic of a promotion gate's stage so far, second by second, for its source and its target, judged by the
 * verdict's rule ({@link ComparisonEngine#judge}): the target's publish latency against the source's at the highest
 * quantile of p99, p90 and p50 that both have the samples for ({@link ComparisonEngine#needed}, and samples in at least
 * {@value ComparisonEngine#MIN_SECONDS} seconds), with the gate's bound as the difference that counts; and the target's
 * publish error rate against the source's by the two-proportion test, each side's variance widened by the dispersion of
 * its failures over the seconds, so that a burst of failures in one second weighs about as one. Seconds are added once
 * each on the gate's tick; nothing is read per message.
 */
public final class GateWindow {

    /** The quantiles judged, highest first. */
    private static final double[] QUANTILES = {0.99, 0.90, 0.50};
    private static final String[] NAMES = {"p99", "p90", "p50"};

    private final List<Histogram> sourceSeconds = new ArrayList<>();
    private final List<Histogram> targetSeconds = new ArrayList<>();
    private final Histogram source = new Histogram(2);
    private final Histogram target = new Histogram(2);
    private final List<long[]> counts = new ArrayList<>();
    private long sourceAttempts;
    private long sourceFailed;
    private long targetAttempts;
    private long targetFailed;

    /** What a judgement found. */
    public enum Outcome {
        /** Too few samples to judge any latency quantile. */
        UNDECIDED,
        /** No breach, but the p99 could not be judged yet (a lower quantile was). */
        PARTIAL,
        /** The p99 (and the error rate) judged, no breach. */
        HEALTHY,
        /** The target breaches the bound by the verdict's rule. */
        BREACH
    }

    /**
     * One judgement of the stage so far.
     *
     * @param outcome what it found
     * @param text the breach, or what was judged, or what is missing, in words
     */
    public record Judgement(Outcome outcome, String text) {}

    /**
     * Adds one second of the source's and the target's traffic.
     *
     * @param sourceSecond the source's second
     * @param targetSecond the target's second
     */
    public void add(TrafficStats.Window sourceSecond, TrafficStats.Window targetSecond) {
        sourceSeconds.add(sourceSecond.publishLatency);
        targetSeconds.add(targetSecond.publishLatency);
        source.add(sourceSecond.publishLatency);
        target.add(targetSecond.publishLatency);
        long sa = sourceSecond.published + sourceSecond.publishFailed;
        long ta = targetSecond.published + targetSecond.publishFailed;
        counts.add(new long[] {sa, sourceSecond.publishFailed, ta, targetSecond.publishFailed});
        sourceAttempts += sa;
        sourceFailed += sourceSecond.publishFailed;
        targetAttempts += ta;
        targetFailed += targetSecond.publishFailed;
    }

    /** {@return the seconds added} */
    public int seconds() {
        return counts.size();
    }

    /** {@return the source's publishes (confirmed or failed) so far} */
    public long sourcePublishes() {
        return sourceAttempts;
    }

    /** {@return the target's publishes (confirmed or failed) so far} */
    public long targetPublishes() {
        return targetAttempts;
    }

    /**
     * Judges the target against the source.
     *
     * @param source the source's name
     * @param target the target's name
     * @param minSamples the fewest publishes (error rate) and latency samples (p50) each side needs
     * @param maxP99Ratio the largest target / source quantile allowed
     * @param slackMs the target's quantile may always be this much above the source's
     * @param maxErrorRateIncrease the largest target error rate minus source error rate allowed
     * @return the judgement
     */
    public Judgement judge(String source, String target, long minSamples, double maxP99Ratio, double slackMs,
            double maxErrorRateIncrease) {
        String errors = errors(source, target, minSamples, maxErrorRateIncrease);
        if (errors != null) {
            return new Judgement(Outcome.BREACH, errors);
        }
        for (int i = 0; i < QUANTILES.length; i++) {
            double q = QUANTILES[i];
            long need = ComparisonEngine.needed(q, minSamples);
            ComparisonEngine.QuantileJudgement j = ComparisonEngine.judge(this.source, () -> sourceSeconds, this.target,
                    () -> targetSeconds, q, need);
            if (!j.enoughSamples()) {
                continue;
            }
            if (!j.judged()) {
                break; // samples in too few seconds: a lower quantile has them in no more
            }
            String name = NAMES[i];
            double bound = Math.max(j.a() * maxP99Ratio, j.a() + slackMs);
            if (j.bAbove(maxP99Ratio, slackMs)) {
                return new Judgement(Outcome.BREACH, String.format(Locale.ROOT, "target '%s' publish %s %.2f ms exceeds the "
                        + "bound %.2f ms (source '%s' %s %.2f ms; 99%% intervals [%.2f, %.2f] and [%.2f, %.2f] ms, over %d s%s)",
                        target, name, j.b(), bound, source, name, j.a(), j.bInterval()[0], j.bInterval()[1], j.aInterval()[0],
                        j.aInterval()[1], seconds(), i == 0 ? "" : "; the p99 bound held at " + name
                                + " while the p99 has too few samples"));
            }
            String judged = String.format(Locale.ROOT, "publish %s %.2f ms within the bound %.2f ms (source %.2f ms) over %d s",
                    name, j.b(), bound, j.a(), seconds());
            return new Judgement(i == 0 ? Outcome.HEALTHY : Outcome.PARTIAL, judged + (i == 0 ? ""
                    : String.format(Locale.ROOT, "; p99 needs %d samples on each side (source %d, target %d)",
                            ComparisonEngine.needed(0.99, minSamples), this.source.getTotalCount(),
                            this.target.getTotalCount())));
        }
        return new Judgement(Outcome.UNDECIDED, String.format(Locale.ROOT, "not yet decided: publish latency needs at least %d "
                + "samples on each side in %d seconds (source %d, target %d, over %d s)", ComparisonEngine.needed(0.5,
                        minSamples), ComparisonEngine.MIN_SECONDS, this.source.getTotalCount(), this.target.getTotalCount(),
                seconds()));
    }

    /** The error-rate breach in words, or null. */
    private String errors(String source, String target, long minSamples, double maxIncrease) {
        if (sourceAttempts < minSamples || targetAttempts < minSamples) {
            return null;
        }
        long[] sa = new long[counts.size()];
        long[] sf = new long[counts.size()];
        long[] ta = new long[counts.size()];
        long[] tf = new long[counts.size()];
        for (int i = 0; i < counts.size(); i++) {
            long[] c = counts.get(i);
            sa[i] = c[0];
            sf[i] = c[1];
            ta[i] = c[2];
            tf[i] = c[3];
        }
        double ps = (double) sourceFailed / sourceAttempts;
        double pt = (double) targetFailed / targetAttempts;
        double phiS = ComparisonEngine.dispersion(sf, sa, ps);
        double phiT = ComparisonEngine.dispersion(tf, ta, pt);
        if (Double.isNaN(phiS) || Double.isNaN(phiT) || pt <= ps
                || !ComparisonEngine.proportionsDiffer(sourceFailed, sourceAttempts, phiS, targetFailed, targetAttempts, phiT,
                        maxIncrease)) {
            return null;
        }
        return String.format(Locale.ROOT, "target '%s' error rate %.2f%% exceeds source '%s' %.2f%% by more than %.2f points "
                + "(z = %.1f, failures' dispersion over the seconds %.1f and %.1f, over %d s)", target, pt * 100, source, ps * 100,
                maxIncrease * 100, ComparisonEngine.proportionZ(sourceFailed, sourceAttempts, phiS, targetFailed, targetAttempts,
                        phiT), phiS, phiT, seconds());
    }
}
