package io.switchboard.internal.comparison;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Event;
import io.switchboard.routing.ComparisonReport.Finding;
import io.switchboard.routing.ComparisonReport.InstanceFigures;
import io.switchboard.routing.ComparisonReport.Verdict;
import io.switchboard.spi.EventKinds;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * What a verdict's findings owe to what happened and to the load: for a latency finding, the share of the slower
 * instance's samples beyond the quantile that were in flight while one of its events lasted (a sample recorded in
 * second s with latency L was in flight from s - L to s + 1; a span overlapping that interval touched it); when the
 * share is at least half, the finding names the events, and gives both instances' figure without the samples in flight
 * during them, judged again by the same rule. For an error-rate finding, the share of the failed publishes in seconds
 * that overlap an event. Latency and client CPU between instances whose rates differ by more than 2x are not judged
 * (the verdict says which split compares them like for like), and under a split by key with keyed traffic every
 * latency and cost finding says that the instances carry different keys. Read on report, from the per-second slices the comparison
 * keeps anyway: nothing on a message's path.
 */
final class Tails {

    /** The share of the tail an event must account for to be named. */
    static final double NAMED_SHARE = 0.5;
    /**
     * How many times more of the tail than of all the instance's samples must have been in flight during the events
     * named (their lift): a span over most of the window holds most of any tail and explains none of it.
     */
    static final double MIN_LIFT = 2.0;
    /** Loads that differ by more than this factor are called different. */
    static final double LOAD_RATIO = 2.0;
    /** Events named per finding. */
    private static final int MAX_NAMED = 3;
    private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    private final ComparisonEngine engine;
    private final String destination;
    private final long from;
    private final long to;
    private final Map<String, TrafficStats.Window> windows;
    private final Map<String, InstanceFigures> figures = new LinkedHashMap<>();
    private final Map<String, Long> judgedFrom;
    /** Per instance, the window's seconds one by one (made on first need). */
    private Map<String, TrafficStats.Window[]> seconds;
    /** How the route assigned the traffic, and whether keyed messages were split by key. */
    private ComparisonReport.Design design = ComparisonReport.Design.UNKNOWN;
    private boolean keyed;

    Tails(ComparisonEngine engine, String destination, long from, long to, Map<String, TrafficStats.Window> windows,
            List<InstanceFigures> figures, Map<String, Long> judgedFrom) {
        this.engine = engine;
        this.destination = destination;
        this.from = from;
        this.to = to;
        this.windows = windows;
        figures.forEach(f -> this.figures.put(f.instance(), f));
        this.judgedFrom = judgedFrom;
    }

    /** Sets the design the report names, and whether keyed messages were published through a split. */
    void design(ComparisonReport.Design design, boolean keyed) {
        this.design = design;
        this.keyed = keyed;
    }

    /** {@return the verdict with its findings explained and its fairness notes} */
    Verdict explain(Verdict verdict) {
        List<Finding> out = new ArrayList<>();
        for (Finding f : verdict.findings()) {
            out.add(explain(f));
        }
        List<String> notes = new ArrayList<>(verdict.notes());
        warmUpNotes(notes);
        loadNotes(notes);
        clockNote(notes);
        return new Verdict(out, verdict.notJudged(), verdict.summary(), verdict.settings(), notes);
    }

    private Finding explain(Finding f) {
        List<String> during = new ArrayList<>(f.during());
        List<String> notes = new ArrayList<>(f.notes());
        double q = ComparisonEngine.quantileOf(f.figure());
        if (!Double.isNaN(q)) {
            latency(f, q, during, notes);
        } else if (f.figure().equals("error rate")) {
            errors(f, w -> w.publishFailed, "failed publishes", during);
        } else if (f.figure().equals(ComparisonEngine.REQUEST_TIMEOUT_RATE)) {
            errors(f, w -> w.requestTimeouts, "timed-out requests", during);
        }
        if ((!Double.isNaN(q) || f.figure().equals("client CPU per message")) && design == ComparisonReport.Design.SPLIT_BY_KEY
                && keyed) {
            notes.add(String.format(Locale.ROOT, "the instances carry different keys (split by key): a spread of latency or "
                    + "cost between keys, such as payload size per tenant, can make identical brokers look different; to "
                    + "compare like with like, split per message (Route.split(Map.of(\"%s\", 50, \"%s\", 50)).perMessage()) "
                    + "or mirror (Route.mirror(\"%s\", \"%s\")) over a new window", f.ahead(), f.behind(), f.ahead(),
                    f.behind()));
        }
        return new Finding(f.figure(), f.ahead(), f.behind(), f.aheadValue(), f.behindValue(), f.text(), f.explanations(),
                during, notes);
    }

    // ---- latency tails ----

    private void latency(Finding f, double q, List<String> during, List<String> notes) {
        List<Event> events = events(f.behind());
        if (events.isEmpty()) {
            return;
        }
        LatencyKind kind = LatencyKind.ofFigure(f.figure());
        TrafficStats.Window[] behind = seconds().get(f.behind());
        long threshold = Math.round(f.behindValue() * 1000); // the behind instance's quantile, in microseconds
        Scan scan = scan(behind, kind, threshold, events);
        if (scan.tail == 0) {
            return;
        }
        Concentration all = scan.union();
        String name = f.behind() + "'s " + f.figure().replace(" p", " samples beyond p");
        String samples = f.behind() + "'s " + kind.word + " samples";
        // kinds of event the faster instance had too: named only when the slower one's tail is concentrated in its own
        // beyond what the faster one's is in its own
        Map<String, double[]> onBoth = onBoth(f, q, kind, threshold, events);
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            Concentration c = scan.of(i);
            if (c.tailIn() > 0 && c.lift() >= MIN_LIFT && !onBoth.containsKey(events.get(i).kind())) {
                candidates.add(i);
            }
        }
        candidates.sort((x, y) -> Long.compare(scan.tailIn[y], scan.tailIn[x]));
        List<Event> explaining = candidates.stream().map(events::get).toList();
        Concentration explained = scan(behind, kind, threshold, explaining).union();
        if (explaining.isEmpty() || explained.share() < NAMED_SHARE || explained.lift() < MIN_LIFT) {
            notExplained(f, all, name, samples, events.size(), onBoth, notes);
            return;
        }
        // named by their share of the tail until together they hold half of it, at most MAX_NAMED
        List<Event> named = new ArrayList<>();
        Concentration namedC = null;
        for (Event e : explaining) {
            named.add(e);
            namedC = scan(behind, kind, threshold, named).union();
            if (named.size() == MAX_NAMED || namedC.share() >= NAMED_SHARE) {
                break;
            }
        }
        Instant first = named.stream().map(Event::start).min(Comparator.naturalOrder()).orElseThrow();
        Instant last = named.stream().map(Event::end).max(Comparator.naturalOrder()).orElseThrow();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%.0f%% of %s (%s ms) were in flight %s-%s UTC while ", namedC.share() * 100, name,
                fmt(f.behindValue()), SECOND.format(first), SECOND.format(last.plusMillis(999))));
        for (int i = 0; i < named.size(); i++) {
            b.append(i == 0 ? "" : i == named.size() - 1 ? " and " : ", ").append(describe(named.get(i)));
        }
        b.append(" (");
        for (int i = 0; i < named.size(); i++) {
            b.append(i == 0 ? "" : "; ").append(named.get(i).text());
        }
        b.append(String.format(Locale.ROOT, "), against %.0f%% of all %s (%.1fx as concentrated)", namedC.base() * 100,
                samples, namedC.lift()));
        if (named.size() < explaining.size()) {
            b.append(String.format(Locale.ROOT, "; %.0f%% with all %d such events of %s's in the window, against %.0f%% of all "
                    + "(%.1fx)", explained.share() * 100, explaining.size(), f.behind(), explained.base() * 100,
                    explained.lift()));
        }
        b.append("; ").append(without(f, q, kind, explaining, named.size() < explaining.size()
                ? "during all " + explaining.size() : "then"));
        during.add(b.toString());
    }

    /** The note of a tail that no event explains: too little of it in the events, or no more than ordinary samples. */
    private static void notExplained(Finding f, Concentration all, String name, String samples, int events,
            Map<String, double[]> onBoth, List<String> notes) {
        if (all.share() < 0.1) {
            return;
        }
        String in = String.format(Locale.ROOT, "%.0f%% of %s (%s ms) were in flight during %s's events (%d in the window)",
                all.share() * 100, name, fmt(f.behindValue()), f.behind(), events);
        if (all.share() < NAMED_SHARE) {
            notes.add(in + ": less than half, so no event explains this difference");
            return;
        }
        StringBuilder b = new StringBuilder(in);
        b.append(String.format(Locale.ROOT, ", and so were %.0f%% of all %s (%.1fx as concentrated; an event is named at "
                + "%.0fx)", all.base() * 100, samples, all.lift(), MIN_LIFT));
        for (Map.Entry<String, double[]> e : onBoth.entrySet()) {
            b.append(String.format(Locale.ROOT, "; %s events happened on both instances: %s's tail was %.1fx as concentrated "
                    + "in its own and %s's %.1fx in its own, less than %.0fx apart", e.getKey(), f.behind(), e.getValue()[0],
                    f.ahead(), e.getValue()[1], MIN_LIFT));
        }
        notes.add(b.append(": no event explains this difference").toString());
    }

    /**
     * {@return per kind of {@code events} that the faster instance had in the window too, the slower instance's lift in
     * its events of the kind and the faster one's in its own (beyond its own quantile), when the first is less than
     * {@value #MIN_LIFT} times the second (at least {@value #MIN_LIFT})}
     */
    private Map<String, double[]> onBoth(Finding f, double q, LatencyKind kind, long threshold, List<Event> events) {
        Map<String, double[]> out = new LinkedHashMap<>();
        List<Event> theirs = events(f.ahead());
        for (String k : events.stream().map(Event::kind).distinct().toList()) {
            List<Event> ahead = theirs.stream().filter(e -> e.kind().equals(k)).toList();
            if (ahead.isEmpty()) {
                continue;
            }
            double slower = scan(seconds().get(f.behind()), kind, threshold,
                    events.stream().filter(e -> e.kind().equals(k)).toList()).union().lift();
            double faster = scan(seconds().get(f.ahead()), kind, Math.round(f.aheadValue() * 1000), ahead).union().lift();
            if (slower < MIN_LIFT * Math.max(1, faster)) {
                out.put(k, new double[] {slower, faster});
            }
        }
        return out;
    }

    /**
     * How an instance's samples beyond a threshold sit in some events' spans against all of its samples.
     *
     * @param tail samples beyond the threshold
     * @param tailIn of them, in flight during the events
     * @param all every sample
     * @param allIn of them, in flight during the events
     */
    record Concentration(long tail, long tailIn, long all, long allIn) {

        /** {@return the share of the tail in flight during the events} */
        double share() {
            return tail == 0 ? 0 : (double) tailIn / tail;
        }

        /** {@return the share of all samples in flight during the events} */
        double base() {
            return all == 0 ? 0 : (double) allIn / all;
        }

        /** {@return how many times the tail's share exceeds that of all samples (0 when none of the tail was in)} */
        double lift() {
            return tailIn == 0 ? 0 : share() / base();
        }
    }

    /** One pass over an instance's seconds: per event and for any of them, the tail's and all samples' in flight. */
    private static final class Scan {
        long tail;
        long all;
        long tailAny;
        long allAny;
        final long[] tailIn;
        final long[] allIn;

        Scan(int events) {
            tailIn = new long[events];
            allIn = new long[events];
        }

        Concentration union() {
            return new Concentration(tail, tailAny, all, allAny);
        }

        Concentration of(int event) {
            return new Concentration(tail, tailIn[event], all, allIn[event]);
        }
    }

    /** Reads {@code seconds}' samples of {@code kind} against {@code events}, the tail being beyond {@code threshold}. */
    private Scan scan(TrafficStats.Window[] seconds, LatencyKind kind, long threshold, List<Event> events) {
        Scan out = new Scan(events.size());
        for (int i = 0; i < seconds.length; i++) {
            Histogram h = kind.of(seconds[i]);
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            long second = from + i;
            for (HistogramIterationValue v : h.recordedValues()) {
                long value = v.getValueIteratedTo();
                boolean beyond = value > threshold && !h.valuesAreEquivalent(value, threshold);
                long count = v.getCountAddedInThisIterationStep();
                out.all += count;
                out.tail += beyond ? count : 0;
                boolean hit = false;
                for (int e = 0; e < events.size(); e++) {
                    if (inFlight(events.get(e), second, value)) {
                        out.allIn[e] += count;
                        out.tailIn[e] += beyond ? count : 0;
                        hit = true;
                    }
                }
                out.allAny += hit ? count : 0;
                out.tailAny += hit && beyond ? count : 0;
            }
        }
        return out;
    }

    /** A sample recorded in {@code second} with latency {@code micros} was in flight from second - latency to second + 1. */
    private static boolean inFlight(Event e, long second, long micros) {
        long arrivedBy = second * 1000 + 1000;
        long sentFrom = second * 1000 - micros / 1000;
        return e.start().toEpochMilli() < arrivedBy && e.end().toEpochMilli() >= sentFrom;
    }

    /**
     * Both instances' figure without the samples in flight during {@code named}, judged by the verdict's rule
     * ({@link ComparisonEngine#judge}, the dispersion measured over the seconds of what is left).
     */
    private String without(Finding f, double q, LatencyKind kind, List<Event> named, String when) {
        List<Histogram> behindSeconds = kept(seconds().get(f.behind()), kind, named);
        List<Histogram> aheadSeconds = kept(seconds().get(f.ahead()), kind, named);
        Histogram behind = sum(behindSeconds);
        Histogram ahead = sum(aheadSeconds);
        long need = engine.needed(q);
        ComparisonEngine.QuantileJudgement j = ComparisonEngine.judge(behind, () -> behindSeconds, ahead, () -> aheadSeconds,
                q, need);
        if (!j.enoughSamples()) {
            return String.format(Locale.ROOT, "without the samples in flight %s, too few are left to judge %s (%s %d, %s %d; "
                    + "needs %d each)", when, f.figure(), f.behind(), behind.getTotalCount(), f.ahead(), ahead.getTotalCount(), need);
        }
        if (!j.judged()) {
            return String.format(Locale.ROOT, "without the samples in flight %s, %s's and %s's %s are left in too few seconds "
                    + "to judge (needs %d each)", when, f.behind(), f.ahead(), f.figure(), ComparisonEngine.MIN_SECONDS);
        }
        double vb = j.a();
        double va = j.b();
        String judged;
        if (!j.differs(engine.minDifference())) {
            judged = "no significant difference";
        } else {
            String lead = va < vb ? f.ahead() : f.behind();
            double larger = Math.max(va, vb);
            judged = String.format(Locale.ROOT, "%s %s ahead by %.0f%%", lead, lead.equals(f.ahead()) ? "still" : "is then",
                    Math.abs(va - vb) / larger * 100);
        }
        return String.format(Locale.ROOT, "without the samples in flight %s (on both instances), %s's %s is %s ms and %s's "
                + "%s ms (99%% intervals [%.2f, %.2f] and [%.2f, %.2f] ms, by the verdict's rule): %s", when, f.behind(), f.figure(),
                fmt(vb), f.ahead(), fmt(va), j.aInterval()[0], j.aInterval()[1], j.bInterval()[0], j.bInterval()[1], judged);
    }

    private static Histogram sum(List<Histogram> seconds) {
        Histogram out = new Histogram(2);
        for (Histogram h : seconds) {
            if (h != null) {
                out.add(h);
            }
        }
        return out;
    }

    /** Per second of {@code seconds}, its samples of {@code kind} not in flight during {@code named} (null: none). */
    private List<Histogram> kept(TrafficStats.Window[] seconds, LatencyKind kind, List<Event> named) {
        List<Histogram> out = new ArrayList<>(seconds.length);
        for (int i = 0; i < seconds.length; i++) {
            Histogram h = kind.of(seconds[i]);
            if (h == null || h.getTotalCount() == 0) {
                out.add(null);
                continue;
            }
            Histogram one = new Histogram(2);
            long second = from + i;
            for (HistogramIterationValue v : h.recordedValues()) {
                long value = v.getValueIteratedTo();
                boolean hit = false;
                for (Event e : named) {
                    hit |= inFlight(e, second, value);
                }
                if (!hit) {
                    one.recordValueWithCount(value, v.getCountAddedInThisIterationStep());
                }
            }
            out.add(one.getTotalCount() == 0 ? null : one);
        }
        return out;
    }

    // ---- error rate ----

    /**
     * Names the events whose seconds hold at least half of the behind instance's failures ({@code failures} of a
     * second: its failed publishes, or its requests that timed out in it).
     */
    private void errors(Finding f, java.util.function.ToLongFunction<TrafficStats.Window> failures, String what,
            List<String> during) {
        List<Event> events = events(f.behind());
        if (events.isEmpty()) {
            return;
        }
        TrafficStats.Window[] behind = seconds().get(f.behind());
        long total = 0;
        long hit = 0;
        List<Event> touching = new ArrayList<>();
        for (int i = 0; i < behind.length; i++) {
            long failed = behind[i] == null ? 0 : failures.applyAsLong(behind[i]);
            if (failed == 0) {
                continue;
            }
            total += failed;
            long second = from + i;
            boolean any = false;
            for (Event e : events) {
                if (inFlight(e, second, 0)) {
                    any = true;
                    if (!touching.contains(e) && touching.size() < MAX_NAMED) {
                        touching.add(e);
                    }
                }
            }
            hit += any ? failed : 0;
        }
        if (total > 0 && (double) hit / total >= NAMED_SHARE) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%.0f%% of %s's %s (%d) fell in seconds while ",
                    100.0 * hit / total, f.behind(), what, total));
            for (int i = 0; i < touching.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(describe(touching.get(i)));
            }
            b.append(" (");
            for (int i = 0; i < touching.size(); i++) {
                b.append(i == 0 ? "" : "; ").append(touching.get(i).text());
            }
            during.add(b.append(')').toString());
        }
    }

    // ---- fairness ----

    /**
     * A fleet's end-to-end latency runs from one replica's publish to another's receipt: two clocks. Said in the report
     * when the window has end-to-end samples.
     */
    private void clockNote(List<String> notes) {
        if (!engine.isFleet()) {
            return;
        }
        for (TrafficStats.Window w : windows.values()) {
            if (w.endToEnd.getTotalCount() > 0) {
                notes.add("end-to-end latency here runs from one replica's publish to another's receipt: it assumes the "
                        + "replicas' clocks agree, so their offset adds to it or takes from it (a reading below 0 counts as "
                        + "0); publish and request-to-reply latency use one replica's clock");
                return;
            }
        }
    }

    private void warmUpNotes(List<String> notes) {
        if (engine.warmUp() <= 0) {
            return;
        }
        for (Map.Entry<String, TrafficStats.Window> e : windows.entrySet()) {
            TrafficStats.Window w = e.getValue();
            if (w.warmUpUntil == Long.MIN_VALUE) {
                continue;
            }
            notes.add(String.format(Locale.ROOT, "%s's first %d s of traffic (to %s UTC, %d messages) are left out of its "
                    + "figures and the verdict: connection, JIT and first assignment (switchboard.comparison.warm-up=%ds)",
                    e.getKey(), engine.warmUp(), SECOND.format(Instant.ofEpochSecond(w.warmUpUntil)), w.leftOut,
                    engine.warmUp()));
        }
    }

    /** Messages per second an instance carried (published and consumed) over its judged seconds. */
    private double rate(String instance) {
        InstanceFigures f = figures.get(instance);
        return f == null ? 0 : f.publishRate() + f.consumeRate();
    }

    /**
     * {@return why latency and client CPU are not judged between {@code a} and {@code b}: their loads (published and
     * consumed per second) are more than {@value #LOAD_RATIO}x apart; null when they are not} A client's latency and its
     * CPU per message both change with its load (batches fill, polls return more), so at loads that far apart the two
     * brokers are not compared like for like.
     */
    String loadsApart(String a, String b) {
        double ra = rate(a);
        double rb = rate(b);
        double lo = Math.min(ra, rb);
        double hi = Math.max(ra, rb);
        if (lo <= 0 || hi / lo <= LOAD_RATIO) {
            return null;
        }
        String busy = ra > rb ? a : b;
        String idle = ra > rb ? b : a;
        return String.format(Locale.ROOT, "latency and client CPU per message between %s and %s: measured at different "
                + "loads: %s carried %s msg/s and %s %s msg/s (%.1fx); to compare, split 50/50 over a new window "
                + "(Route.split(Map.of(\"%s\", 50, \"%s\", 50)).perMessage()), or give %s %.0fx its present weight",
                a, b, busy, fmt(hi), idle, fmt(lo), hi / lo, a, b, idle, hi / lo);
    }

    private void loadNotes(List<String> notes) {
        List<String> names = new ArrayList<>(figures.keySet());
        for (int i = 0; i < names.size(); i++) {
            for (int j = i + 1; j < names.size(); j++) {
                String a = names.get(i);
                String b = names.get(j);
                double ra = rate(a);
                double rb = rate(b);
                double lo = Math.min(ra, rb);
                double hi = Math.max(ra, rb);
                if (lo <= 0 || hi / lo <= LOAD_RATIO) {
                    continue;
                }
                String busy = ra > rb ? a : b;
                String idle = ra > rb ? b : a;
                notes.add(String.format(Locale.ROOT, "%s carried %.1fx %s's load (%s vs %s msg/s): latency and client CPU per "
                        + "message were not judged between them (error and dead-letter rates were). To compare them like "
                        + "for like, give both the same share per message (Route.split(Map.of(\"%s\", 50, \"%s\", 50))"
                        + ".perMessage()) and compare again over a new window; or, to judge %s at %s's present load, give %s "
                        + "%.0fx %s's present weight", busy, hi / lo, idle, fmt(hi), fmt(lo), a, b, idle, busy, idle, hi / lo,
                        idle));
            }
        }
    }

    // ---- reading ----

    private List<Event> events(String instance) {
        Timeline t = engine.timeline();
        if (t == null) {
            return List.of();
        }
        // a sample recorded in the window may have been sent up to its latency before it: look back a minute too
        return t.events(instance, (from - 60) * 1000, (to + 1) * 1000 - 1);
    }

    private Map<String, TrafficStats.Window[]> seconds() {
        if (seconds == null) {
            seconds = new LinkedHashMap<>();
            for (String i : figures.keySet()) {
                seconds.put(i, new TrafficStats.Window[(int) (to - from + 1)]);
            }
            for (long s = from; s <= to; s++) {
                Map<String, TrafficStats.Window> one = engine.windowsRolled(destination, s, s, engine.warmUp());
                for (Map.Entry<String, TrafficStats.Window> e : one.entrySet()) {
                    TrafficStats.Window[] row = seconds.get(e.getKey());
                    if (row != null) {
                        row[(int) (s - from)] = e.getValue();
                    }
                }
            }
        }
        return seconds;
    }

    /** {@return {@code instance}'s histogram of {@code kind} of each second of the window (null: no traffic)} */
    List<Histogram> histograms(String instance, LatencyKind kind) {
        TrafficStats.Window[] row = seconds().get(instance);
        List<Histogram> out = new ArrayList<>(row == null ? 0 : row.length);
        if (row != null) {
            for (TrafficStats.Window w : row) {
                out.add(kind.of(w));
            }
        }
        return out;
    }

    /** {@return {@code instance}'s {@code count} of each second of the window (0: no traffic)} */
    long[] counts(String instance, java.util.function.ToLongFunction<TrafficStats.Window> count) {
        TrafficStats.Window[] row = seconds().get(instance);
        long[] out = new long[row == null ? 0 : row.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = row[i] == null ? 0 : count.applyAsLong(row[i]);
        }
        return out;
    }

    /** {@return what an event did, in words} */
    static String describe(Event e) {
        String s = e.subject();
        return switch (e.kind()) {
            case EventKinds.REBALANCE -> "group " + s + " rebalanced on " + e.instance();
            case EventKinds.ASSIGNMENT -> "the assignment of " + s + " on " + e.instance() + " changed";
            case EventKinds.CONNECTION_LOST -> e.instance() + "'s connection " + s + " was lost";
            case EventKinds.CONSUMER_CANCELLED -> "consumer " + s + " on " + e.instance() + " was cancelled";
            case EventKinds.CONSUMER_RECOVERED -> "consumer " + s + " on " + e.instance() + " recovered";
            case EventKinds.LEADER_CHANGE -> "the leader of " + s + " on " + e.instance() + " moved";
            case EventKinds.BACK_PRESSURE -> "publishes to " + s + " on " + e.instance() + " were held back";
            case EventKinds.PUBLISH_RETRY -> "publishes to " + s + " on " + e.instance() + " were retried";
            case EventKinds.REPLICA_JOINED -> "replica " + s + " joined the fleet";
            case EventKinds.REPLICA_LEFT -> "replica " + s + " left the fleet";
            case EventKinds.ROUTE_CHANGED -> "the route of " + s + " changed";
            case EventKinds.CIRCUIT_BREAKER -> "circuit breaker " + s + " changed state";
            case EventKinds.GC_PAUSE -> "the JVM paused for garbage collection";
            default -> e.kind() + " " + s + " on " + e.instance();
        };
    }

    private static String fmt(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
