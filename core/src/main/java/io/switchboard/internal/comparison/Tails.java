package io.switchboard.internal.comparison;

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
 * that overlap an event. Latency and cost findings between instances whose rates differ by more than 2x say so, and
 * the verdict says which split compares them like for like. Read on report, from the per-second slices the comparison
 * keeps anyway: nothing on a message's path.
 */
final class Tails {

    /** The share of the tail an event must account for to be named. */
    static final double NAMED_SHARE = 0.5;
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
        if (!Double.isNaN(q) || f.figure().equals("client CPU per message")) {
            String load = differentLoads(f.ahead(), f.behind());
            if (load != null) {
                notes.add(load);
            }
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
        double[] share = new double[events.size()];
        long[] total = new long[1];
        long inAny = tail(behind, kind, threshold, events, share, total);
        if (total[0] == 0) {
            return;
        }
        double all = (double) inAny / total[0];
        String name = f.behind() + "'s " + f.figure().replace(" p", " samples beyond p");
        if (all < NAMED_SHARE) {
            if (all >= 0.1) {
                notes.add(String.format(Locale.ROOT, "%.0f%% of %s (%s ms) were in flight during %s's events (%d in the "
                        + "window): less than half, so no event explains this difference", all * 100, name,
                        fmt(f.behindValue()), f.behind(), events.size()));
            }
            return;
        }
        List<Event> named = named(events, share, behind, kind, threshold, total[0]);
        double namedShare = namedShare(behind, kind, threshold, named, total[0]);
        Instant first = named.stream().map(Event::start).min(Comparator.naturalOrder()).orElseThrow();
        Instant last = named.stream().map(Event::end).max(Comparator.naturalOrder()).orElseThrow();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%.0f%% of %s (%s ms) were in flight %s-%s UTC while ", namedShare * 100, name,
                fmt(f.behindValue()), SECOND.format(first), SECOND.format(last.plusMillis(999))));
        for (int i = 0; i < named.size(); i++) {
            b.append(i == 0 ? "" : i == named.size() - 1 ? " and " : ", ").append(describe(named.get(i)));
        }
        b.append(" (");
        for (int i = 0; i < named.size(); i++) {
            b.append(i == 0 ? "" : "; ").append(named.get(i).text());
        }
        b.append(')');
        if (named.size() < countDistinct(events, share)) {
            b.append(String.format(Locale.ROOT, "; %.0f%% with all %d of %s's events in the window", all * 100, events.size(),
                    f.behind()));
        }
        b.append("; ").append(without(f, q, kind, named));
        during.add(b.toString());
    }

    /** Events with a share, counted. */
    private static int countDistinct(List<Event> events, double[] share) {
        int n = 0;
        for (double s : share) {
            n += s > 0 ? 1 : 0;
        }
        return n;
    }

    /**
     * Counts the samples beyond {@code threshold} in {@code seconds} ({@code total[0]}), each event's share of them
     * ({@code share}), and returns how many were in flight during any event.
     */
    private long tail(TrafficStats.Window[] seconds, LatencyKind kind, long threshold, List<Event> events,
            double[] share, long[] total) {
        long any = 0;
        long[] per = new long[events.size()];
        for (int i = 0; i < seconds.length; i++) {
            Histogram h = kind.of(seconds[i]);
            if (h == null || h.getTotalCount() == 0 || h.getMaxValue() <= threshold) {
                continue;
            }
            long second = from + i;
            for (HistogramIterationValue v : h.recordedValues()) {
                long value = v.getValueIteratedTo();
                if (value <= threshold || h.valuesAreEquivalent(value, threshold)) {
                    continue;
                }
                long count = v.getCountAddedInThisIterationStep();
                total[0] += count;
                boolean hit = false;
                for (int e = 0; e < events.size(); e++) {
                    if (inFlight(events.get(e), second, value)) {
                        per[e] += count;
                        hit = true;
                    }
                }
                any += hit ? count : 0;
            }
        }
        for (int e = 0; e < per.length; e++) {
            share[e] = total[0] == 0 ? 0 : (double) per[e] / total[0];
        }
        return any;
    }

    /** The events to name: by share, until together they hold at least half of the tail (at most {@value #MAX_NAMED}). */
    private List<Event> named(List<Event> events, double[] share, TrafficStats.Window[] behind, LatencyKind kind,
            long threshold, long total) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (share[i] > 0) {
                order.add(i);
            }
        }
        order.sort((x, y) -> Double.compare(share[y], share[x]));
        List<Event> named = new ArrayList<>();
        for (int i : order) {
            named.add(events.get(i));
            if (named.size() == MAX_NAMED || namedShare(behind, kind, threshold, named, total) >= NAMED_SHARE) {
                break;
            }
        }
        return named;
    }

    private double namedShare(TrafficStats.Window[] seconds, LatencyKind kind, long threshold, List<Event> named,
            long total) {
        long[] t = new long[1];
        return (double) tail(seconds, kind, threshold, named, new double[named.size()], t) / Math.max(1, total);
    }

    /** A sample recorded in {@code second} with latency {@code micros} was in flight from second - latency to second + 1. */
    private static boolean inFlight(Event e, long second, long micros) {
        long arrivedBy = second * 1000 + 1000;
        long sentFrom = second * 1000 - micros / 1000;
        return e.start().toEpochMilli() < arrivedBy && e.end().toEpochMilli() >= sentFrom;
    }

    /** Both instances' figure without the samples in flight during {@code named}, judged again. */
    private String without(Finding f, double q, LatencyKind kind, List<Event> named) {
        Histogram behind = kept(seconds().get(f.behind()), kind, named);
        Histogram ahead = kept(seconds().get(f.ahead()), kind, named);
        long need = engine.needed(q);
        if (behind.getTotalCount() < need || ahead.getTotalCount() < need) {
            return String.format(Locale.ROOT, "without the samples in flight then, too few are left to judge %s (%s %d, %s %d; "
                    + "needs %d each)", f.figure(), f.behind(), behind.getTotalCount(), f.ahead(), ahead.getTotalCount(), need);
        }
        double vb = ComparisonEngine.ms(behind.getValueAtPercentile(q * 100));
        double va = ComparisonEngine.ms(ahead.getValueAtPercentile(q * 100));
        boolean differs = ComparisonEngine.differs(vb, ComparisonEngine.interval(behind, q), va,
                ComparisonEngine.interval(ahead, q), engine.minDifference());
        String judged;
        if (!differs) {
            judged = "no significant difference";
        } else {
            String lead = va < vb ? f.ahead() : f.behind();
            double larger = Math.max(va, vb);
            judged = String.format(Locale.ROOT, "%s %s ahead by %.0f%%", lead, lead.equals(f.ahead()) ? "still" : "is then",
                    Math.abs(va - vb) / larger * 100);
        }
        return String.format(Locale.ROOT, "without the samples in flight then (on both instances), %s's %s is %s ms and %s's "
                + "%s ms: %s", f.behind(), f.figure(), fmt(vb), f.ahead(), fmt(va), judged);
    }

    private Histogram kept(TrafficStats.Window[] seconds, LatencyKind kind, List<Event> named) {
        Histogram out = new Histogram(2);
        for (int i = 0; i < seconds.length; i++) {
            Histogram h = kind.of(seconds[i]);
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            long second = from + i;
            for (HistogramIterationValue v : h.recordedValues()) {
                long value = v.getValueIteratedTo();
                boolean hit = false;
                for (Event e : named) {
                    hit |= inFlight(e, second, value);
                }
                if (!hit) {
                    out.recordValueWithCount(value, v.getCountAddedInThisIterationStep());
                }
            }
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

    private String differentLoads(String ahead, String behind) {
        double ra = rate(ahead);
        double rb = rate(behind);
        double lo = Math.min(ra, rb);
        double hi = Math.max(ra, rb);
        if (lo <= 0 || hi / lo <= LOAD_RATIO) {
            return null;
        }
        return String.format(Locale.ROOT, "measured at different loads: %s carried %s msg/s and %s %s msg/s (%.1fx); see "
                + "(fairness) for a like-for-like split", ahead, fmt(ra), behind, fmt(rb), hi / lo);
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
                notes.add(String.format(Locale.ROOT, "%s carried %.1fx %s's load (%s vs %s msg/s): latency and cost per message "
                        + "were measured at different loads. To compare them like for like, give both the same share "
                        + "(Route.split(Map.of(\"%s\", 50, \"%s\", 50))) and compare again over a new window; or, to judge %s "
                        + "at %s's present load, give %s %.0fx %s's present weight", busy, hi / lo, idle, fmt(hi), fmt(lo), a,
                        b, idle, busy, idle, hi / lo, idle));
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
