package io.switchboard.internal.comparison;

import io.switchboard.routing.BrokerComparison;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import io.switchboard.routing.ComparisonReport.InstanceFigures;
import io.switchboard.routing.ComparisonReport.Latency;
import io.switchboard.routing.ComparisonReport.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Reads the traffic book into {@link ComparisonReport}s; the rule is documented there. */
public final class ComparisonEngine implements BrokerComparison {

    /** 99% two-sided normal quantile. */
    static final double Z99 = 2.576;
    /** The smallest difference of two latency quantiles, in ms, that a verdict reports (see {@link #differs}). */
    static final double MIN_LATENCY_DIFFERENCE_MS = 0.5;
    private static final double[] QUANTILES = {0.50, 0.99, 0.999};
    private static final String[] QUANTILE_NAMES = {"p50", "p99", "p99.9"};
    /** The figure of requests that ended at their time-out, of all that ended. */
    static final String REQUEST_TIMEOUT_RATE = "request timeout rate";

    private final TrafficBook book;
    private final SettingEffects effects;
    private final Map<String, ConsumerLag> lags;
    private final List<String> instances;
    private final Map<String, String> brokers;
    private final long minSamples;
    private final double minDifference;
    /** The other replicas' traffic for a fleet engine, else null. */
    private final FleetTraffic remote;
    private final java.util.function.Supplier<String> scope;
    private volatile ComparisonEngine fleet;
    private final ComparisonEngine local;
    /** What happened to the instances, or null. */
    private final Timeline timeline;
    /** Seconds of each instance's first traffic left out of the judged window. */
    private final long warmUp;
    /** How the routes assign each destination's traffic (set on the process's own engine), or null. */
    private volatile Designs designs;

    /** How the routes assign each destination's traffic to the instances, as the router knows it. */
    public interface Designs {
        /**
         * {@return the design of {@code destination}'s route now; for null (every destination), the design they share,
         * or {@link ComparisonReport.Design#MIXED}}
         */
        ComparisonReport.Design design(String destination);

        /** {@return true when a keyed message was published to {@code destination} (null: any) through a split here} */
        boolean keyed(String destination);
    }

    /** Tells this engine (and its fleet's) how the routes assign the traffic; the report names it. */
    public void designs(Designs designs) {
        local.designs = designs;
    }

    /**
     * An engine over {@code book}.
     *
     * @param instances instance names in order
     * @param brokers adapter id per instance
     */
    public ComparisonEngine(TrafficBook book, List<String> instances, Map<String, String> brokers, long minSamples,
            double minDifference) {
        this(book, instances, brokers, Map.of(), Map.of(), minSamples, minDifference);
    }

    /**
     * An engine over {@code book} whose verdict names the client settings behind a difference.
     *
     * @param instances instance names in order
     * @param brokers adapter id per instance
     * @param settings the settings each instance's adapter reports
     * @param lags each instance's consumer lag
     */
    public ComparisonEngine(TrafficBook book, List<String> instances, Map<String, String> brokers,
            Map<String, List<io.switchboard.spi.PerformanceSetting>> settings, Map<String, ConsumerLag> lags, long minSamples,
            double minDifference) {
        this(book, instances, brokers, settings, lags, minSamples, minDifference, null, 0);
    }

    /**
     * An engine whose verdict also explains tails by the instances' events and leaves out their first seconds.
     *
     * @param instances instance names in order
     * @param brokers adapter id per instance
     * @param settings the settings each instance's adapter reports
     * @param lags each instance's consumer lag
     * @param timeline what happened to each instance, or null
     * @param warmUpSeconds seconds of each instance's first traffic left out of the figures and the verdict
     */
    public ComparisonEngine(TrafficBook book, List<String> instances, Map<String, String> brokers,
            Map<String, List<io.switchboard.spi.PerformanceSetting>> settings, Map<String, ConsumerLag> lags, long minSamples,
            double minDifference, Timeline timeline, long warmUpSeconds) {
        this.timeline = timeline;
        this.warmUp = warmUpSeconds;
        this.effects = new SettingEffects(Map.copyOf(brokers), settings);
        this.lags = Map.copyOf(lags);
        this.book = book;
        this.instances = List.copyOf(instances);
        this.brokers = Map.copyOf(brokers);
        this.minSamples = minSamples;
        this.minDifference = minDifference;
        this.remote = null;
        this.scope = () -> "process";
        this.local = this;
    }

    private ComparisonEngine(ComparisonEngine local, FleetTraffic remote, java.util.function.Supplier<String> scope) {
        this.effects = local.effects;
        this.lags = local.lags;
        this.book = local.book;
        this.instances = local.instances;
        this.brokers = local.brokers;
        this.minSamples = local.minSamples;
        this.minDifference = local.minDifference;
        this.remote = remote;
        this.scope = scope;
        this.local = local;
        this.fleet = this;
        this.timeline = local.timeline;
        this.warmUp = local.warmUp;
    }

    /**
     * Makes this engine the replica's own one of a fleet and returns the fleet's engine, which adds
     * the other replicas' traffic from {@code remote}.
     */
    public ComparisonEngine joinFleet(FleetTraffic remote, java.util.function.Supplier<String> fleetScope, String replicaScope) {
        ComparisonEngine f = new ComparisonEngine(this, remote, fleetScope);
        this.fleet = f;
        this.localScope = replicaScope;
        return f;
    }

    private volatile String localScope;

    @Override
    public BrokerComparison fleet() {
        ComparisonEngine f = fleet;
        return f != null ? f : this;
    }

    @Override
    public BrokerComparison local() {
        return local;
    }

    /** The engine gates judge with: the fleet's when there is one. */
    public ComparisonEngine judging() {
        ComparisonEngine f = fleet;
        return f != null ? f : this;
    }

    /** True for a fleet engine (its newest second is not complete until the replicas shared it). */
    boolean isFleet() {
        return remote != null;
    }

    private String scopeText() {
        if (remote != null) {
            return scope.get();
        }
        String s = localScope;
        return s != null ? s : "process";
    }

    @Override
    public ComparisonReport report() {
        return report(null);
    }

    @Override
    public ComparisonReport report(String destination) {
         requireEnabled("a comparison report");
        return report(destination, Duration.ofSeconds(book.seconds()));
    }

    @Override
    public ComparisonReport report(String destination, Duration window) {
         requireEnabled("a comparison report");
        // a window longer than the book has been recording would understate the rates
        long seconds = Math.max(1, Math.min(Math.min(book.seconds(), window.toSeconds()), book.age()));
        long now = book.nowSecond();
        long from = now - seconds;
        long to = now - 1;
        book.roll();
        Map<String, TrafficStats.Window> windows = windowsRolled(destination, from, to, warmUp);
        List<InstanceFigures> figures = new ArrayList<>();
        Map<String, Long> judgedFrom = new LinkedHashMap<>();
        for (String instance : instances) {
            TrafficStats.Window w = windows.get(instance);
            long start = w.fromSecond == Long.MAX_VALUE ? from : Math.max(from, w.fromSecond);
            judgedFrom.put(instance, start);
            figures.add(figures(instance, destination, w, Math.max(1, to - start + 1)));
        }
        List<ComparisonReport.Event> events = timeline == null ? List.of()
                : timeline.events(instances, from * 1000, Long.MAX_VALUE); // the second under way too
        Tails tails = new Tails(this, destination, from, to, windows, figures, judgedFrom);
        Designs d = local.designs;
        ComparisonReport.Design design = d == null ? ComparisonReport.Design.UNKNOWN : d.design(destination);
        tails.design(design, d != null && d.keyed(destination));
        Verdict verdict = verdict(figures, windows, CostFindings.samples(book, instances, judgedFrom, to), tails);
        verdict = tails.explain(verdict);
        return new ComparisonReport(Instant.ofEpochSecond(now), Duration.ofSeconds(seconds), destination, figures, verdict,
                scopeText(), events, design);
    }

    /** Throws when the Switchboard was built with the comparison off. */
    public void requireEnabled(String what) {
        if (book == null) {
            throw new io.switchboard.ConfigurationException("The broker comparison is off (switchboard.comparison.enabled=false), so "
                    + what + " cannot be made; set switchboard.comparison.enabled=true");
        }
    }

    /** Per instance, the traffic of {@code destination} (null: all) in seconds {@code from..to}. */
    public Map<String, TrafficStats.Window> windows(String destination, long from, long to) {
        book.roll();
        return windowsRolled(destination, from, to, 0); // promotion gates judge every second they hold
    }

    /**
     * {@link #windows} without rolling the book first. Each (instance, destination)'s first {@code warmUp} seconds of
     * traffic are left out (counted in {@code leftOut}), and so is the instance's client cost in its warm-up.
     */
    Map<String, TrafficStats.Window> windowsRolled(String destination, long from, long to, long warmUp) {
        Map<String, TrafficStats.Window> out = new LinkedHashMap<>();
        for (String instance : instances) {
            out.put(instance, new TrafficStats.Window());
        }
        Map<String, Long> instanceFirst = new LinkedHashMap<>();
        for (TrafficStats s : book.all()) {
            TrafficStats.Window w = out.get(s.instance);
            if (w == null) {
                continue;
            }
            long first = firstTraffic(s.instance, s.destination);
            if (s.firstTraffic() == Long.MAX_VALUE) {
                continue; // no traffic yet
            }
            instanceFirst.merge(s.instance, first, Math::min);
            long start = Math.max(from, first + warmUp);
            w.costMessages += s.messages(start, to);
            if (destination == null || destination.equals(s.destination)) {
                w.firstTraffic = Math.min(w.firstTraffic, first);
                w.fromSecond = Math.min(w.fromSecond, start);
                if (start > from) {
                    w.leftOut += s.messages(from, Math.min(to, start - 1));
                    w.warmUpUntil = Math.max(w.warmUpUntil, start - 1);
                }
                s.addTo(w, start, to);
            }
        }
        for (String instance : instances) {
            Long first = instanceFirst.get(instance);
            long start = first == null ? from : Math.max(from, first + warmUp);
            if (start <= to) {
                book.cost().addTo(Map.of(instance, out.get(instance)), start, to);
                out.get(instance).recordsPerRequest = book.batches().recordsPerRequest(instance, start, to);
            }
        }
        if (remote != null) {
            remote.addTo(out, destination, from, to, warmUp, this::firstTraffic);
        }
        return out;
    }

    /**
     * {@return the first second of traffic of {@code instance} and {@code destination}: this process's, or another
     * replica's when it came first (a fleet warms an instance up once)}
     */
    private long firstTraffic(String instance, String destination) {
        long first = Long.MAX_VALUE;
        for (TrafficStats s : book.all()) {
            if (s.instance.equals(instance) && s.destination.equals(destination)) {
                first = Math.min(first, s.firstTraffic());
            }
        }
        return remote == null ? first : Math.min(first, remote.firstTraffic(instance, destination));
    }

    /** {@return the seconds of each instance's first traffic left out of the judged window} */
    long warmUp() {
        return warmUp;
    }

    /** {@return the timeline, or null} */
    Timeline timeline() {
        return timeline;
    }

    /** {@return the smallest difference of the larger value that counts} */
    double minDifference() {
        return minDifference;
    }

    /** {@return the fewest samples per instance a figure needs} */
    long minSamples() {
        return minSamples;
    }

    private InstanceFigures figures(String instance, String destination, TrafficStats.Window w, long seconds) {
        long attempts = w.published + w.publishFailed;
        return new InstanceFigures(instance, brokers.get(instance), w.published, w.publishFailed, w.consumed, w.deadLetters,
                w.redeliveries, (double) w.published / seconds, (double) w.consumed / seconds,
                attempts == 0 ? Double.NaN : (double) w.publishFailed / attempts,
                w.consumed == 0 ? Double.NaN : (double) w.deadLetters / w.consumed,
                latency(w.publishLatency), latency(w.endToEnd), lag(instance, destination), cost(w), requests(w));
    }

    /** The requests the instance carried: replies with their latency, time-outs and other failures. */
    static ComparisonReport.Requests requests(TrafficStats.Window w) {
        long all = w.requests();
        return new ComparisonReport.Requests(w.replies, w.requestTimeouts, w.requestFailed,
                all == 0 ? Double.NaN : (double) w.requestTimeouts / all, latency(w.requestLatency));
    }

    /** The client's CPU per message published or consumed on any destination, and the sampled bytes per publish. */
    static ComparisonReport.Cost cost(TrafficStats.Window w) {
        double cpu = w.costMessages == 0 || !ClientCost.measured() ? Double.NaN : w.cpuNanos / 1000.0 / w.costMessages;
        double wire = w.wireSamples == 0 ? Double.NaN : (double) w.wireBytes / w.wireSamples;
        return new ComparisonReport.Cost(cpu, wire, w.costMessages, w.wireSamples, w.recordsPerRequest);
    }

    private Map<String, Long> lag(String instance, String destination) {
        ConsumerLag l = lags.get(instance);
        return l == null ? Map.of() : l.lag(destination);
    }

    /** {@return the quantile named in a latency figure (e.g. 0.99 for "e2e p99"), or NaN for another figure} */
    static double quantileOf(String figure) {
        LatencyKind kind = LatencyKind.ofFigure(figure);
        for (int q = 0; kind != null && q < QUANTILES.length; q++) {
            if (figure.equals(kind.word + " " + QUANTILE_NAMES[q])) {
                return QUANTILES[q];
            }
        }
        return Double.NaN;
    }

    /**
     * The samples beyond a quantile each instance needs before it is judged: 20, so that p99 needs 2,000 samples and
     * p99.9 20,000. With 10 (the rule before), two identical memory instances were judged apart at e2e p99.9 in 1 to 6
     * of 20 five-second windows of 10,000 samples each (docs/verdict.md): the normal approximation of the order
     * statistics' ranks, and the dispersion measured over a few seconds, are poor with so few.
     */
    static final int MIN_BEYOND = 20;

    /** {@return the fewest samples per instance quantile q needs} */
    long needed(double q) {
        return needed(q, minSamples);
    }

    /** {@return the fewest samples per instance quantile q needs: {@value #MIN_BEYOND} beyond it, and {@code minSamples}} */
    static long needed(double q, long minSamples) {
        return Math.max(minSamples, (long) Math.ceil(MIN_BEYOND / (1 - q) - 1e-9));
    }

    static Latency latency(Histogram h) {
        long n = h.getTotalCount();
        if (n == 0) {
            return new Latency(0, Double.NaN, Double.NaN, Double.NaN);
        }
        return new Latency(n, ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(99)), ms(h.getValueAtPercentile(99.9)));
    }

    static double ms(long micros) {
        return micros / 1000.0;
    }

    private Verdict verdict(List<InstanceFigures> figures, Map<String, TrafficStats.Window> windows, Map<String, double[]> cost,
            Tails tails) {
        List<Finding> findings = new ArrayList<>();
        List<String> notJudged = new ArrayList<>();
        if (instances.size() < 2) {
            return new Verdict(findings, notJudged, "one broker instance: nothing to compare", effects.describe(instances));
        }
        Map<String, Integer> wins = new LinkedHashMap<>();
        int judged = 0;
        for (int i = 0; i < instances.size(); i++) {
            for (int j = i + 1; j < instances.size(); j++) {
                String a = instances.get(i);
                String b = instances.get(j);
                TrafficStats.Window wa = windows.get(a);
                TrafficStats.Window wb = windows.get(b);
                String apart = tails.loadsApart(a, b); // latency and client CPU are not judged at loads 2x apart
                if (apart != null) {
                    notJudged.add(apart);
                }
                for (int q = 0; q < QUANTILES.length; q++) {
                    for (LatencyKind kind : LatencyKind.values()) {
                        judged += quantile(kind.word + " " + QUANTILE_NAMES[q], QUANTILES[q], a, kind.of(wa), b,
                                kind.of(wb), tails, kind, findings, notJudged, wins);
                    }
                }
                judged += proportion("error rate", a, b, w -> w.publishFailed, w -> w.published + w.publishFailed, windows,
                        tails, findings, notJudged, wins);
                judged += proportion(REQUEST_TIMEOUT_RATE, a, b, w -> w.requestTimeouts, TrafficStats.Window::requests, windows,
                        tails, findings, notJudged, wins);
                judged += proportion("dead-letter rate", a, b, w -> w.deadLetters, w -> w.consumed, windows, tails, findings,
                        notJudged, wins);
                judged += apart != null ? 0 : CostFindings.judge(a, cost.get(a), b, cost.get(b), minDifference, findings,
                        notJudged, wins, effects.batchSizes(a, wa.recordsPerRequest, b, wb.recordsPerRequest));
            }
        }
        return new Verdict(findings, notJudged, summary(findings, judged, wins), effects.describe(instances));
    }

    private static String summary(List<Finding> findings, int judged, Map<String, Integer> wins) {
        if (judged == 0) {
            return "not enough samples to judge";
        }
        if (findings.isEmpty()) {
            return "no significant difference (" + judged + " figure(s) judged)";
        }
        StringBuilder b = new StringBuilder();
        wins.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).forEach(e -> {
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(e.getKey()).append(" ahead on ").append(e.getValue()).append(" of ").append(judged).append(" judged figure(s)");
        });
        return b.toString();
    }

    /** Judges one quantile; returns 1 when judged. */
    private int quantile(String figure, double q, String a, Histogram ha, String b, Histogram hb, Tails tails,
            LatencyKind kind, List<Finding> findings, List<String> notJudged, Map<String, Integer> wins) {
        if (tails.loadsApart(a, b) != null) {
            return 0; // said once for the pair
        }
        long na = ha.getTotalCount();
        long nb = hb.getTotalCount();
        long need = needed(q);
        QuantileJudgement j = judge(ha, () -> tails.histograms(a, kind), hb, () -> tails.histograms(b, kind), q, need);
        if (!j.enoughSamples()) {
            if (na > 0 || nb > 0) {
                notJudged.add(String.format(Locale.ROOT, "%s: %s has %d and %s has %d samples; needs %d each", figure, a, na, b,
                        nb, need));
            }
            return 0;
        }
        if (!j.judged()) {
            notJudged.add(String.format(Locale.ROOT, "%s: %s and %s need samples in at least %d seconds each (how the samples "
                    + "beyond the quantile cluster in time is measured over the seconds)", figure, a, b, MIN_SECONDS));
            return 0;
        }
        double[] ia = j.aInterval();
        double[] ib = j.bInterval();
        double va = j.a();
        double vb = j.b();
        double larger = Math.max(va, vb);
        if (j.differs(minDifference)) {
            boolean aAhead = va < vb;
            String ahead = aAhead ? a : b;
            String behind = aAhead ? b : a;
            double good = Math.min(va, vb);
            double bad = larger;
            SettingEffects.Explained explained = effects.explain(figure, ahead, behind, good, bad);
            findings.add(new Finding(figure, ahead, behind, good, bad, String.format(Locale.ROOT,
                    "%s is ahead on %s by %.0f%% (%.2f ms vs %.2f ms, 99%% intervals [%.2f, %.2f] and [%.2f, %.2f] ms)", ahead,
                    figure, (bad - good) / bad * 100, good, bad, aAhead ? ia[0] : ib[0], aAhead ? ia[1] : ib[1],
                    aAhead ? ib[0] : ia[0], aAhead ? ib[1] : ia[1]), explained.causes(), List.of(), explained.notes()));
            wins.merge(ahead, 1, Integer::sum);
        }
        return 1;
    }

    /**
     * Quantile q of two instances judged by the verdict's rule: at least {@code need} samples each, their clustering in
     * time measured over at least {@value #MIN_SECONDS} seconds each (at p99 for higher quantiles), and each one's 99%
     * interval widened by it. The verdict and the promotion gates both judge through here.
     *
     * @param ha a's samples over the window, in microseconds
     * @param secondsA a's samples of each second of the window (null: none), read only when there are enough samples
     * @param hb b's samples over the window
     * @param secondsB b's samples of each second of the window
     * @param q the quantile
     * @param need the fewest samples each instance needs
     * @return the estimates and intervals, or why they were not judged
     */
    static QuantileJudgement judge(Histogram ha, java.util.function.Supplier<List<Histogram>> secondsA, Histogram hb,
            java.util.function.Supplier<List<Histogram>> secondsB, double q, long need) {
        if (ha.getTotalCount() < need || hb.getTotalCount() < need) {
            return QuantileJudgement.TOO_FEW_SAMPLES;
        }
        // measured at p99 for p99.9: ten samples beyond the quantile spread over a few seconds say little of how they
        // cluster, and what slows an instance's p99.9 for a moment slows its p99 too
        double qd = Math.min(q, DISPERSION_QUANTILE);
        double da = dispersion(secondsA.get(), qd, ha.getValueAtPercentile(qd * 100));
        double db = dispersion(secondsB.get(), qd, hb.getValueAtPercentile(qd * 100));
        if (Double.isNaN(da) || Double.isNaN(db)) {
            return QuantileJudgement.TOO_FEW_SECONDS;
        }
        return new QuantileJudgement(true, true, ms(ha.getValueAtPercentile(q * 100)), interval(ha, q, da),
                ms(hb.getValueAtPercentile(q * 100)), interval(hb, q, db));
    }

    /**
     * Two instances' estimates of one quantile (ms) and their 99% intervals, or why they were not judged.
     *
     * @param enoughSamples false when an instance had fewer samples than the quantile needs
     * @param judged false when there were too few samples, or samples in too few seconds
     * @param a a's estimate
     * @param aInterval a's 99% interval
     * @param b b's estimate
     * @param bInterval b's 99% interval
     */
    public record QuantileJudgement(boolean enoughSamples, boolean judged, double a, double[] aInterval, double b,
            double[] bInterval) {

        static final QuantileJudgement TOO_FEW_SAMPLES = new QuantileJudgement(false, false, Double.NaN, null, Double.NaN, null);
        static final QuantileJudgement TOO_FEW_SECONDS = new QuantileJudgement(true, false, Double.NaN, null, Double.NaN, null);

        /** {@return true when judged and the estimates differ by the verdict's rule, by at least {@code minDifference}} */
        public boolean differs(double minDifference) {
            return judged && ComparisonEngine.differs(a, aInterval, b, bInterval, minDifference);
        }

        /**
         * {@return true when judged and b is above a by the verdict's rule (intervals apart, at least
         * {@value ComparisonEngine#MIN_LATENCY_DIFFERENCE_MS} ms), and b's estimate is above both a's times {@code ratio}
         * and a's plus {@code slackMs}}: the difference that counts is the caller's bound
         */
        public boolean bAbove(double ratio, double slackMs) {
            return differs(0) && b > a && b > Math.max(a * ratio, a + slackMs);
        }
    }

    /**
     * The rule for a latency quantile: estimates {@code va} and {@code vb} (ms) with 99% intervals
     * {@code ia} and {@code ib} differ when the intervals do not overlap, the estimates differ by at
     * least {@code minDifference} of the larger one, and by at least {@value #MIN_LATENCY_DIFFERENCE_MS}
     * ms: below that lie the client machine's scheduling noise (two instances on one broker were
     * 0.05 ms apart at p50 with intervals that did not overlap) and the millisecond resolution of
     * Kafka's record timestamps, which end-to-end latency uses with the default envelope.
     */
    static boolean differs(double va, double[] ia, double vb, double[] ib, double minDifference) {
        boolean disjoint = ia[1] < ib[0] || ib[1] < ia[0];
        double larger = Math.max(va, vb);
        double gap = Math.abs(va - vb);
        return disjoint && larger > 0 && gap / larger >= minDifference && gap >= MIN_LATENCY_DIFFERENCE_MS;
    }

    /** The highest quantile at which the samples' clustering in time is measured. */
    static final double DISPERSION_QUANTILE = 0.99;

    /** The seconds with samples a quantile's dispersion needs. */
    static final int MIN_SECONDS = 5;

    /**
     * How much more the samples beyond {@code threshold} (the window's quantile q, in microseconds) cluster in time than
     * independent samples would: Pearson's dispersion of their count per second against n_s(1-q), over the seconds with
     * samples, at least 1; NaN with fewer than {@value #MIN_SECONDS} such seconds. A host's or a client's hiccup puts
     * many of an instance's slow samples into one second; the order-statistic interval assumes independent samples, and
     * two identical memory instances were judged apart at e2e p99 in 5 of 20 three-second windows before the interval
     * was widened by it (docs/verdict.md).
     */
    static double dispersion(List<Histogram> seconds, double q, long threshold) {
        long[] beyond = new long[seconds.size()];
        long[] n = new long[seconds.size()];
        for (int i = 0; i < seconds.size(); i++) {
            Histogram h = seconds.get(i);
            n[i] = h == null ? 0 : h.getTotalCount();
            beyond[i] = n[i] == 0 || h.getMaxValue() <= threshold ? 0 : n[i] - h.getCountBetweenValues(0, threshold);
        }
        return dispersion(beyond, n, 1 - q);
    }

    /**
     * Pearson's dispersion of the count {@code hits[i]} of each second against {@code n[i]} times {@code p}, over the
     * seconds with samples, at least 1; NaN with fewer than {@value #MIN_SECONDS} such seconds, or 1 when {@code p} is 0.
     * Samples beyond a quantile, or failed publishes, that come in bursts count as fewer independent ones: a burst of k
     * in one second weighs about as one.
     */
    static double dispersion(long[] hits, long[] n, double p) {
        int k = 0;
        double chi = 0;
        for (int i = 0; i < n.length; i++) {
            if (n[i] == 0) {
                continue;
            }
            double expected = n[i] * p;
            if (expected > 0) {
                chi += (hits[i] - expected) * (hits[i] - expected) / expected;
            }
            k++;
        }
        if (k < MIN_SECONDS) {
            return Double.NaN;
        }
        return p <= 0 ? 1 : Math.max(1, chi / (k - 1));
    }

    /** The 99% distribution-free confidence interval of quantile q, in ms. */
    static double[] interval(Histogram h, double q) {
        return interval(h, q, 1);
    }

    /** The 99% interval of quantile q, in ms, its rank half-width widened by the square root of {@code dispersion}. */
    static double[] interval(Histogram h, double q, double dispersion) {
        long n = h.getTotalCount();
        double center = n * q;
        double half = Z99 * Math.sqrt(dispersion * n * q * (1 - q));
        double lo = Math.max(1, Math.floor(center - half));
        double hi = Math.min(n, Math.ceil(center + half));
        return new double[] {ms(h.getValueAtPercentile(100.0 * lo / n)), ms(h.getValueAtPercentile(100.0 * hi / n))};
    }

    /**
     * Judges one proportion by a two-proportion z-test, each side's variance widened by the dispersion of its failures
     * over the seconds (one burst of 50 weighs about as one failure, as the promotion gate judges them); returns 1 when
     * judged.
     */
    private int proportion(String figure, String a, String b, java.util.function.ToLongFunction<TrafficStats.Window> hits,
            java.util.function.ToLongFunction<TrafficStats.Window> of, Map<String, TrafficStats.Window> windows, Tails tails,
            List<Finding> findings, List<String> notJudged, Map<String, Integer> wins) {
        long xa = hits.applyAsLong(windows.get(a));
        long na = of.applyAsLong(windows.get(a));
        long xb = hits.applyAsLong(windows.get(b));
        long nb = of.applyAsLong(windows.get(b));
        if (na < minSamples || nb < minSamples) {
            if (na > 0 || nb > 0) {
                notJudged.add(String.format(Locale.ROOT, "%s: %s has %d and %s has %d samples; needs %d each", figure, a, na, b,
                        nb, minSamples));
            }
            return 0;
        }
        double pa = (double) xa / na;
        double pb = (double) xb / nb;
        double phiA = tails.dispersion(a, hits, of);
        double phiB = tails.dispersion(b, hits, of);
        double z = proportionZ(xa, na, phiA, xb, nb, phiB);
        if (proportionsDiffer(xa, na, phiA, xb, nb, phiB, 0)) {
            boolean aAhead = pa < pb;
            String ahead = aAhead ? a : b;
            String behind = aAhead ? b : a;
            String bursts = phiA > 1 || phiB > 1 ? String.format(Locale.ROOT, ", dispersion over the seconds %.1f and %.1f",
                    aAhead ? phiA : phiB, aAhead ? phiB : phiA) : "";
            findings.add(new Finding(figure, ahead, behind, Math.min(pa, pb), Math.max(pa, pb), String.format(Locale.ROOT,
                    "%s is ahead on %s: %.2f%% vs %.2f%% (z = %.1f%s)", ahead, figure, Math.min(pa, pb) * 100,
                    Math.max(pa, pb) * 100, Math.abs(z), bursts)));
            wins.merge(ahead, 1, Integer::sum);
        }
        return 1;
    }

    /** The smallest difference of two proportions that a verdict reports. */
    static final double MIN_PROPORTION_DIFFERENCE = 0.001;

    /**
     * The two-proportion z statistic of b's rate against a's ({@code xb/nb - xa/na} over its standard error), each side's
     * variance widened by its dispersion ({@code phiA}, {@code phiB}, 1 for independent events); NaN when the standard
     * error is 0.
     */
    static double proportionZ(long xa, long na, double phiA, long xb, long nb, double phiB) {
        double pooled = (double) (xa + xb) / (na + nb);
        double se = Math.sqrt(pooled * (1 - pooled) * (phiA / na + phiB / nb));
        return se > 0 ? ((double) xb / nb - (double) xa / na) / se : Double.NaN;
    }

    /**
     * The verdict's rule for a proportion: the rates differ when |z| exceeds the 99% quantile and they are at least
     * {@value #MIN_PROPORTION_DIFFERENCE} and more than {@code tolerance} apart.
     */
    static boolean proportionsDiffer(long xa, long na, double phiA, long xb, long nb, double phiB, double tolerance) {
        double z = proportionZ(xa, na, phiA, xb, nb, phiB);
        double gap = Math.abs((double) xb / nb - (double) xa / na);
        return !Double.isNaN(z) && Math.abs(z) > Z99 && gap >= MIN_PROPORTION_DIFFERENCE && gap > tolerance;
    }
}
