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
        long horizon = Math.max(1, Math.min(book.seconds(), window.toSeconds()));
        long judged = seconds;
        for (String instance : instances) {
            if (windows.get(instance).fromSecond != Long.MAX_VALUE) {
                judged = Math.min(judged, to - judgedFrom.get(instance) + 1);
            }
        }
        ComparisonReport.Horizon reading = new ComparisonReport.Horizon(Math.max(0, judged), horizon,
                level(judged, horizon));
        Verdict verdict = verdict(figures, windows, CostFindings.samples(book, instances, judgedFrom, to), tails,
                reading.z());
        verdict = tails.explain(verdict);
        return new ComparisonReport(Instant.ofEpochSecond(now), Duration.ofSeconds(seconds), destination, figures, verdict,
                scopeText(), events, design, reading);
    }

    /**
     * The normal quantile a report's verdict judges at (intervals, z-tests, rank-sum): {@link #Z_HORIZON} (2.807) times
     * the square root of {@code horizon / judged}, so 2.807 once the window holds its {@code horizon}
     * seconds and higher while it fills. The bound of O'Brien and Fleming, for a statistic that grows with the seconds
     * as a Brownian motion does: the chance that |z| ever crosses c·sqrt(horizon / t) for some t up to the horizon is at
     * most 4 (1 - Phi(c)), here 1%, however often the report is read (each closed second is a look at most).
     */
    static double level(long judged, long horizon) {
        long t = Math.max(1, Math.min(judged, horizon));
        return Z_HORIZON * Math.sqrt((double) horizon / t);
    }

    /** {@return the intervals of a finding judged at the normal quantile z, in words: "99.5% intervals" at the full window} */
    static String intervals(double z) {
        if (z == Z99) {
            return "99% intervals";
        }
        return z == Z_HORIZON ? "99.5% intervals" : String.format(Locale.ROOT, "intervals at z = %.2f", z);
    }

    /**
     * The normal quantile of 1 - 0.01 / 4: with {@link #level}, at most 1% of figures that do not differ are found
     * to differ at any look while the window fills (two sides, reflection).
     */
    static final double Z_HORIZON = ComparisonReport.Horizon.Z_FULL;

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
            Tails tails, double z) {
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
                                kind.of(wb), tails, kind, z, findings, notJudged, wins);
                    }
                }
                judged += proportion("error rate", a, b, w -> w.publishFailed, w -> w.published + w.publishFailed, windows,
                        tails, z, findings, notJudged, wins);
                judged += proportion(REQUEST_TIMEOUT_RATE, a, b, w -> w.requestTimeouts, TrafficStats.Window::requests,
                        windows, tails, z, findings, notJudged, wins);
                judged += proportion("dead-letter rate", a, b, w -> w.deadLetters, w -> w.consumed, windows, tails, z, findings,
                        notJudged, wins);
                judged += apart != null ? 0 : CostFindings.judge(a, cost.get(a), b, cost.get(b), minDifference, z, findings,
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
            LatencyKind kind, double z, List<Finding> findings, List<String> notJudged, Map<String, Integer> wins) {
        if (tails.loadsApart(a, b) != null) {
            return 0; // said once for the pair
        }
        long na = ha.getTotalCount();
        long nb = hb.getTotalCount();
        long need = needed(q);
        QuantileJudgement j = judge(ha, () -> tails.histograms(a, kind), hb, () -> tails.histograms(b, kind), q, need, z);
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
                    "%s is ahead on %s by %.0f%% (%.2f ms vs %.2f ms, %s [%.2f, %.2f] and [%.2f, %.2f] ms)", ahead,
                    figure, (bad - good) / bad * 100, good, bad, intervals(z), aAhead ? ia[0] : ib[0], aAhead ? ia[1] : ib[1],
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
        return judge(ha, secondsA, hb, secondsB, q, need, Z99);
    }

    /**
     * {@link #judge(Histogram, java.util.function.Supplier, Histogram, java.util.function.Supplier, double, long)} with
     * intervals at the normal quantile {@code z}: {@link #Z99} for 99%, higher for a report whose window is still filling
     * ({@link #level}).
     */
    static QuantileJudgement judge(Histogram ha, java.util.function.Supplier<List<Histogram>> secondsA, Histogram hb,
            java.util.function.Supplier<List<Histogram>> secondsB, double q, long need, double z) {
        if (ha.getTotalCount() < need || hb.getTotalCount() < need) {
            return QuantileJudgement.TOO_FEW_SAMPLES;
        }
        // measured at p99 for p99.9: ten samples beyond the quantile spread over a few seconds say little of how they
        // cluster, and what slows an instance's p99.9 for a moment slows its p99 too
        double qd = Math.min(q, DISPERSION_QUANTILE);
        double da = dispersion(secondsA.get(), qd, ha.getValueAtPercentile(qd * 100), ha.getValueAtPercentile(50));
        double db = dispersion(secondsB.get(), qd, hb.getValueAtPercentile(qd * 100), hb.getValueAtPercentile(50));
        if (Double.isNaN(da) || Double.isNaN(db)) {
            return QuantileJudgement.TOO_FEW_SECONDS;
        }
        if (q > qd) {
            // a stall's samples beyond p99 lie beyond p99.9 too: their variance, counted in samples, is the same at both,
            // and counted against the fewer samples expected beyond p99.9 that much larger. It is measured beyond the
            // lower of the two p99s, on both: where an instance's own p99 lies within its stalls' samples, beyond it
            // would count only a part of each stall
            long t = Math.min(ha.getValueAtPercentile(qd * 100), hb.getValueAtPercentile(qd * 100));
            double d = Math.max(excess(secondsA.get(), ha, t), excess(secondsB.get(), hb, t));
            da = db = 1 + d / (q * (1 - q));
        } else if (q >= DISPERSION_QUANTILE) {
            // in a tail, rare clusters (a stall's samples) are what varies: the same process on both sides is what is
            // tested, and a window in which one side stalled and the other did not says nothing of which stalls less, so
            // both take the larger dispersion
            da = db = Math.max(da, db);
        }
        return new QuantileJudgement(true, true, ms(ha.getValueAtPercentile(q * 100)), interval(ha, q, da, z),
                ms(hb.getValueAtPercentile(q * 100)), interval(hb, q, db, z));
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
     * independent samples would: the dispersion of their count per second and per block of seconds
     * ({@link #dispersion(long[], long[], double)}), at least 1; NaN with fewer than {@value #MIN_SECONDS} seconds with
     * samples. A host's or a client's hiccup puts many of an instance's slow samples into one second, and a load that
     * drifts for seconds into several in a row; the order-statistic interval assumes independent samples, and two
     * identical memory instances were judged apart at e2e p99 in 5 of 20 three-second windows before the interval was
     * widened by it (docs/verdict.md).
     */
    static double dispersion(List<Histogram> seconds, double q, long threshold) {
        return dispersion(seconds, q, threshold, -1);
    }

    /**
     * {@link #dispersion(List, double, long)}, and beyond a quantile above the median the drift's memory read from the
     * samples beyond {@code median} (the window's median, in microseconds; negative: not read) as well: a slow drift of
     * the latency moves every quantile, but beyond p99 a second holds a few samples, whose count's own noise hides the
     * drift's memory from the lag-1 autocorrelation of its blocks (under a drift of 20 s, simulated A/A windows were
     * judged apart at p99 in 7 of 100 with its own, 1 with the median's: docs/verdict.md); beyond the median a second
     * holds half of its samples, and the memory shows ({@link #memory}).
     */
    static double dispersion(List<Histogram> seconds, double q, long threshold, long median) {
        long[] n = new long[seconds.size()];
        long all = 0;
        for (int i = 0; i < seconds.size(); i++) {
            n[i] = seconds.get(i) == null ? 0 : seconds.get(i).getTotalCount();
            all += n[i];
        }
        long[] beyond = beyond(seconds, n, threshold);
        long[] beyondMedian = q > 0.5 && median >= 0 ? beyond(seconds, n, median) : null;
        // against the share actually beyond the threshold, not 1 - q: where many samples tie at the quantile's value
        // (a narrow distribution in the histogram's buckets), fewer than n (1 - q) lie beyond it in every second, and
        // measured against 1 - q that steady shortfall would read as clustering
        return dispersion(beyond, n, all == 0 ? 1 - q : (double) sum(beyond) / all, beyondMedian,
                all == 0 || beyondMedian == null ? 0.5 : (double) sum(beyondMedian) / all);
    }

    private static long[] beyond(List<Histogram> seconds, long[] n, long threshold) {
        long[] beyond = new long[seconds.size()];
        for (int i = 0; i < seconds.size(); i++) {
            Histogram h = seconds.get(i);
            beyond[i] = n[i] == 0 || h.getMaxValue() <= threshold ? 0 : n[i] - h.getCountBetweenValues(0, threshold);
        }
        return beyond;
    }

    private static long sum(long[] x) {
        long s = 0;
        for (long v : x) {
            s += v;
        }
        return s;
    }

    /**
     * {@return the variance beyond {@code threshold} more than independent samples' would have, per sample: (phi - 1)
     * p (1 - p), p the share of {@code all}'s samples beyond it and phi their dispersion over the seconds (1 where it
     * cannot be measured)}
     */
    static double excess(List<Histogram> seconds, Histogram all, long threshold) {
        long n = all.getTotalCount();
        double p = n == 0 || all.getMaxValue() <= threshold ? 0 : (double) (n - all.getCountBetweenValues(0, threshold)) / n;
        double phi = dispersion(seconds, 1 - p, threshold, all.getValueAtPercentile(50));
        return Double.isNaN(phi) ? 0 : (phi - 1) * p * (1 - p);
    }

    /** The block lengths, in seconds, over which the dispersion is measured; the largest is taken. */
    static final int[] BLOCKS = {1, 2, 5, 10};
    /** A block length is used when the seconds with samples hold at least this many blocks of it. */
    static final int MIN_BLOCKS = 5;
    /**
     * The block lengths, in seconds, whose series is read as an AR(1) one ({@link #drift}); used with 4 blocks or more.
     * Blocks of 5 s as well found a 1.2x difference at p99 in 94% of simulated windows instead of 100%, and left as
     * many A/A findings under a drift of 20 s (docs/verdict.md).
     */
    static final int[] DRIFT_BLOCKS = {2};

    /**
     * How much more the count {@code hits[i]} of each second varies than {@code n[i]} independent draws of probability
     * {@code p} would: Pearson's dispersion against the binomial variance n p (1 - p), over the seconds with at least
     * half the mean count of the seconds with samples (in their order, the others left out: the first and last seconds
     * of a load carry a part of it, and their mix can differ, as a load's last requests all end by their time-out),
     * of the counts summed over overlapping blocks of b consecutive
     * seconds, for each b of {@link #BLOCKS} that fits {@value #MIN_BLOCKS} times; the largest, at least 1. NaN with
     * fewer than {@value #MIN_SECONDS} seconds with samples; 1 when {@code p} is 0 or 1. Samples beyond a quantile, or
     * failed publishes, that come in bursts count as fewer independent ones: a burst of k in one second weighs about as
     * one. Over blocks, so does a run of seconds that a slow drift of the load (a correlation time of 5 to 20 s) pushes
     * the same way: a block of b seconds holds b times the variance of a second when they are independent, more when
     * they are not, and the sum over a window is judged by what its blocks say. Overlapping blocks (the batch means of
     * Meketon and Schmeiser) give the estimate of a block length about 1.5 times the degrees of freedom of disjoint ones.
     */
    static double dispersion(long[] hits, long[] n, double p) {
        return dispersion(hits, n, p, null, 0.5);
    }

    /**
     * {@link #dispersion(long[], long[], double)}, the drift's lag-1 autocorrelation at least the {@link #memory} of
     * {@code memoryHits} (hits of probability {@code memoryP} among the same {@code n}; null: its own only).
     */
    static double dispersion(long[] hits, long[] n, double p, long[] memoryHits, double memoryP) {
        long total = 0;
        int with = 0;
        for (long x : n) {
            total += x;
            with += x > 0 ? 1 : 0;
        }
        int k = 0;
        for (long x : n) {
            k += x > 0 && 2 * x * with >= total ? 1 : 0;
        }
        if (k < MIN_SECONDS) {
            return Double.NaN;
        }
        if (p <= 0 || p >= 1) {
            return 1;
        }
        long[] h = new long[k];
        long[] m = new long[k];
        long[] hm = memoryHits == null ? null : new long[k];
        for (int i = 0, j = 0; i < n.length; i++) {
            if (n[i] > 0 && 2 * n[i] * with >= total) {
                h[j] = hits[i];
                if (hm != null) {
                    hm[j] = memoryHits[i];
                }
                m[j++] = n[i];
            }
        }
        double phi = 1;
        for (int b : BLOCKS) {
            if (b > 1 && k < b * MIN_BLOCKS) {
                break;
            }
            double chi = 0;
            long sumH = 0;
            long sumN = 0;
            for (int i = 0; i < k; i++) {
                sumH += h[i];
                sumN += m[i];
                if (i >= b) {
                    sumH -= h[i - b];
                    sumN -= m[i - b];
                }
                if (i >= b - 1) {
                    double expected = sumN * p;
                    chi += (sumH - expected) * (sumH - expected) / (expected * (1 - p));
                }
            }
            phi = Math.max(phi, chi * k / ((double) (k - b) * (k - b + 1)));
        }
        for (int b : DRIFT_BLOCKS) {
            if (k >= b * 4) {
                phi = Math.max(phi, drift(h, m, p, b, hm == null ? 0 : memory(hm, m, memoryP, b)));
            }
        }
        return phi;
    }

    /**
     * The dispersion of the window's total when its blocks of {@code b} seconds follow an AR(1) series: the blocks'
     * standardized residuals z_j = (H_j - N_j p) / sqrt(N_j p (1 - p)), their lag-1 autocorrelation rho (bias-corrected,
     * within [0, 0.99]), the variance factor f of a sum of m such blocks, and phi = f S / (m - f), S the sum of z_j^2
     * (its expectation is the blocks' variance times m - f, the window's own mean taken off); rho at least
     * {@code memory}.
     */
    static double drift(long[] h, long[] n, double p, int b, double memory) {
        double[] z = residuals(h, n, p, b);
        int m = z.length;
        double rho = Math.max(lag1(z, 0, m), memory);
        double f = ar1Factor(rho, m);
        f = Math.min(f, m - 1);
        double mean = 0;
        for (double x : z) {
            mean += x / m;
        }
        double squares = 0;
        for (double x : z) {
            squares += (x - mean) * (x - mean);
        }
        return f * squares / (m - f);
    }

    /** The standardized residuals (H_j - N_j p) / sqrt(N_j p (1 - p)) of the blocks of {@code b} seconds. */
    private static double[] residuals(long[] h, long[] n, double p, int b) {
        int m = h.length / b;
        double[] z = new double[m];
        for (int j = 0; j < m; j++) {
            long hh = 0;
            long nn = 0;
            for (int i = j * b; i < (j + 1) * b; i++) {
                hh += h[i];
                nn += n[i];
            }
            z[j] = (hh - nn * p) / Math.sqrt(nn * p * (1 - p));
        }
        return z;
    }

    /**
     * {@return the memory the blocks of {@code b} seconds of hits of probability {@code p} show: their lag-1
     * autocorrelation, bias-corrected ({@link #lag1}), when its raw value is above 2/sqrt(m) for m blocks (about 5%
     * one-sided for independent ones), else 0} Read beyond the median for a tail's drift; independent seconds rarely
     * lend it a memory they do not have.
     */
    static double memory(long[] h, long[] n, double p, int b) {
        if (p <= 0 || p >= 1) {
            return 0;
        }
        double[] z = residuals(h, n, p, b);
        return rawLag1(z, 0, z.length) > 2 / Math.sqrt(z.length) ? lag1(z, 0, z.length) : 0;
    }

    /** {@return the lag-1 autocorrelation of {@code x[from..from+n)}, bias-corrected and kept within [0, 0.99]} */
    static double lag1(double[] x, int from, int n) {
        if (n < 3) {
            return 0;
        }
        double rho = rawLag1(x, from, n);
        return Math.max(0, Math.min(0.99, rho + (1 + 4 * rho) / n));
    }

    /** {@return the lag-1 autocorrelation of {@code x[from..from+n)}, as measured} */
    private static double rawLag1(double[] x, int from, int n) {
        double mean = 0;
        for (int i = from; i < from + n; i++) {
            mean += x[i] / n;
        }
        double num = 0;
        double den = 0;
        for (int i = from; i < from + n; i++) {
            den += (x[i] - mean) * (x[i] - mean);
            if (i > from) {
                num += (x[i] - mean) * (x[i - 1] - mean);
            }
        }
        return den == 0 ? 0 : num / den;
    }

    /** {@return the variance factor of a mean of n seconds of an AR(1) series with lag-1 autocorrelation rho} */
    static double ar1Factor(double rho, int n) {
        double f = 1;
        double power = 1;
        for (int k = 1; k < n; k++) {
            power *= rho;
            f += 2 * (1 - (double) k / n) * power;
        }
        return f;
    }


    /** The 99% distribution-free confidence interval of quantile q, in ms. */
    static double[] interval(Histogram h, double q) {
        return interval(h, q, 1, Z99);
    }

    /**
     * The interval of quantile q, in ms, at the normal quantile {@code z} ({@link #Z99} for 99%), its rank half-width
     * widened by the square root of {@code dispersion}.
     */
    static double[] interval(Histogram h, double q, double dispersion, double z) {
        long n = h.getTotalCount();
        double center = n * q;
        double half = z * Math.sqrt(dispersion * n * q * (1 - q));
        double lo = Math.max(1, Math.floor(center - half));
        double hi = Math.min(n, Math.ceil(center + half));
        return new double[] {ms(h.getValueAtPercentile(100.0 * lo / n)), ms(h.getValueAtPercentile(100.0 * hi / n))};
    }

    /**
     * Judges one proportion by a two-proportion z-test at the normal quantile {@code z}, each side's variance widened by
     * the dispersion of its events over the window's seconds and blocks of seconds (1 with samples in fewer than
     * {@value #MIN_SECONDS} seconds); returns 1 when judged.
     */
    private int proportion(String figure, String a, String b, java.util.function.ToLongFunction<TrafficStats.Window> events,
            java.util.function.ToLongFunction<TrafficStats.Window> of, Map<String, TrafficStats.Window> windows, Tails tails,
            double z, List<Finding> findings, List<String> notJudged, Map<String, Integer> wins) {
        long xa = events.applyAsLong(windows.get(a));
        long na = of.applyAsLong(windows.get(a));
        long xb = events.applyAsLong(windows.get(b));
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
        double phiA = eventDispersion(tails.counts(a, events), tails.counts(a, of), pa);
        double phiB = eventDispersion(tails.counts(b, events), tails.counts(b, of), pb);
        double zab = proportionZ(xa, na, phiA, xb, nb, phiB);
        if (proportionsDiffer(xa, na, phiA, xb, nb, phiB, 0, z)) {
            boolean aAhead = pa < pb;
            String ahead = aAhead ? a : b;
            String behind = aAhead ? b : a;
            String bursts = phiA > 1 || phiB > 1 ? String.format(Locale.ROOT, ", dispersion over the seconds %.1f and %.1f",
                    aAhead ? phiA : phiB, aAhead ? phiB : phiA) : "";
            findings.add(new Finding(figure, ahead, behind, Math.min(pa, pb), Math.max(pa, pb), String.format(Locale.ROOT,
                    "%s is ahead on %s: %.2f%% vs %.2f%% (z = %.1f%s)", ahead, figure, Math.min(pa, pb) * 100,
                    Math.max(pa, pb) * 100, Math.abs(zab), bursts)));
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
        return proportionsDiffer(xa, na, phiA, xb, nb, phiB, tolerance, Z99);
    }

    /** {@link #proportionsDiffer(long, long, double, long, long, double, double)} with |z| past {@code level}. */
    static boolean proportionsDiffer(long xa, long na, double phiA, long xb, long nb, double phiB, double tolerance,
            double level) {
        double z = proportionZ(xa, na, phiA, xb, nb, phiB);
        double gap = Math.abs((double) xb / nb - (double) xa / na);
        return !Double.isNaN(z) && Math.abs(z) > level && gap >= MIN_PROPORTION_DIFFERENCE && gap > tolerance;
    }

    /** The dispersion of events over the seconds ({@link #dispersion(long[], long[], double)}), 1 where it cannot be measured. */
    static double eventDispersion(long[] events, long[] of, double p) {
        double phi = dispersion(events, of, p);
        return Double.isNaN(phi) ? 1 : phi;
    }
}
