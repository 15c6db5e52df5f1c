package io.switchboard.routing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The broker instances' figures over one window, and the verdict.
 *
 * <p>The verdict's rule: rates (messages per second) are shown, never judged, because the routing
 * weights decide them. Each instance's first {@code switchboard.comparison.warm-up} seconds of traffic
 * (5 s) are left out of its figures and the verdict, and said so. A latency quantile q (p50, p99, p99.9
 * of publish latency, of end-to-end latency and, where the application made requests, of request-to-reply latency)
 * is judged between two instances only when each has at least
 * {@code minSamples} samples, at least 20 beyond the quantile (n(1-q) >= 20, so p99 needs 2,000 and
 * p99.9 20,000) and samples in at least 5 seconds. Its confidence interval is distribution-free,
 * from the order statistics at ranks nq +/- z sqrt(phi nq(1-q)), where phi (at least 1) is how much
 * more the samples beyond the quantile (beyond p99 for p99.9) cluster in time than
 * independent samples would (the dispersion of their count per second and per block of seconds, and as a drift;
 * at p99 and p99.9 the larger of the two instances'), and z is 2.807 once the window is full, higher while it fills
 * ({@link Horizon}); one instance is ahead
 * when the two intervals do not overlap AND the point estimates differ by at least {@code minDifference}
 * (default 10%) of the larger one and by at least 0.5 ms (below that: scheduling noise, and Kafka's
 * millisecond record timestamps). Error rate (failed publishes / publishes), dead-letter rate (dead
 * letters / consumed) and request timeout rate (requests that timed out / requests that ended) are
 * judged by a two-proportion z-test at the same z, each side's variance widened by the dispersion of its
 * counts over the seconds, each side with at least
 * {@code minSamples}, and a difference of at least 0.1 percentage point. Anything else is "no
 * significant difference"; too few samples is said as such, never judged. A finding names the events
 * during which at least half of the slower side's samples beyond the quantile were in flight, offers a
 * setting as its cause only when it accounts for at least half of the difference (never for a request
 * figure). Latency and client CPU are not judged between two instances whose loads (published and consumed per
 * second) were more than 2x apart; error and dead-letter rates still are. The report names its {@link Design}, and
 * under a split by key with keyed traffic every latency and cost finding says that the instances carry different
 * keys (docs/verdict.md). Where no request ended in the window, the report says nothing of requests.
 *
 * @param at when the report was made
 * @param window the window covered
 * @param destination the destination, or null for all
 * @param instances per instance figures, in instance order
 * @param verdict the verdict
 * @param scope whose traffic: {@code process} (no fleet), {@code replica <id>} (this replica of a
 *     fleet) or {@code fleet of N replicas} (every replica's histograms merged)
 * @param events what happened to the instances in the window (rebalances, connection loss, route changes, GC pauses,
 *     ...), oldest first per instance; this process's timeline, also in a fleet report
 * @param design how the destination's route assigned the traffic the instances are compared on, as it is when the
 *     report is made: what makes the comparison like for like, or not
 * @param horizon how much of its window the verdict judged, and at which level: decided once the window is full
 */
public record ComparisonReport(Instant at, Duration window, String destination, List<InstanceFigures> instances,
        Verdict verdict, String scope, List<Event> events, Design design, Horizon horizon) {

    /**
     * Copies the events.
     *
     * @param at when the figures were taken
     * @param window the span of time they cover
     * @param destination the destination's name, or null for every destination
     * @param instances the figures of each instance
     * @param verdict the comparison's verdict
     * @param scope whose traffic
     * @param events what happened in the window
     * @param design how the route assigned the traffic
     * @param horizon how much of its window the verdict judged (null: all of it)
     */
    public ComparisonReport {
        events = List.copyOf(events);
        design = design == null ? Design.UNKNOWN : design;
        horizon = horizon == null ? Horizon.full(window.toSeconds()) : horizon;
    }

    /**
     * A report whose design is not known and whose verdict judged its whole window.
     *
     * @param at when the figures were taken
     * @param window the span of time they cover
     * @param destination the destination's name, or null for every destination
     * @param instances the figures of each instance
     * @param verdict the comparison's verdict
     * @param scope whose traffic
     * @param events what happened in the window
     */
    public ComparisonReport(Instant at, Duration window, String destination, List<InstanceFigures> instances, Verdict verdict,
            String scope, List<Event> events) {
        this(at, window, destination, instances, verdict, scope, events, Design.UNKNOWN, null);
    }

    /**
     * A report whose verdict judged its whole window.
     *
     * @param at when the figures were taken
     * @param window the span of time they cover
     * @param destination the destination's name, or null for every destination
     * @param instances the figures of each instance
     * @param verdict the comparison's verdict
     * @param scope whose traffic
     * @param events what happened in the window
     * @param design how the route assigned the traffic
     */
    public ComparisonReport(Instant at, Duration window, String destination, List<InstanceFigures> instances, Verdict verdict,
            String scope, List<Event> events, Design design) {
        this(at, window, destination, instances, verdict, scope, events, design, null);
    }

    /**
     * A report whose design is not known.
     *
     * @param at when the figures were taken
     * @param window the span of time they cover
     * @param destination the destination's name, or null for every destination
     * @param instances the figures of each instance
     * @param verdict the comparison's verdict
     * @param scope whose traffic
     * @param events what happened in the window
     * @param horizon how much of its window the verdict judged
     */
    public ComparisonReport(Instant at, Duration window, String destination, List<InstanceFigures> instances, Verdict verdict,
            String scope, List<Event> events, Horizon horizon) {
        this(at, window, destination, instances, verdict, scope, events, Design.UNKNOWN, horizon);
    }

    /** {@return true when the verdict judged its full window; before, it judged at a stricter level (see {@link Horizon})} */
    public boolean decided() {
        return horizon.decided();
    }

    /**
     * How much of its window a verdict judged. A report can be read at any second while its window fills; each read
     * is a look at more samples, and a verdict judged at the same level at every look would find a difference that is
     * not there more often the more often it is read. So the verdict judges at the normal quantile {@code z}, 2.807
     * times the square root of {@code horizonSeconds / judgedSeconds}: at the full window 2.807 (99.5% two-sided),
     * higher before, so that however often the report is read, a figure that does not differ is found to differ at some
     * look before or at the full window in at most 1% of windows (docs/verdict.md).
     *
     * @param judgedSeconds the seconds the verdict judged: each instance's traffic in the window after its warm-up, the
     *     shortest of them
     * @param horizonSeconds the window asked for
     * @param z the normal quantile the verdict judged at
     */
    public record Horizon(long judgedSeconds, long horizonSeconds, double z) {

        /** The level at the full window: the normal quantile of 1 - 0.01 / 4. */
        public static final double Z_FULL = 2.807;

        static Horizon full(long seconds) {
            return new Horizon(seconds, seconds, Z_FULL);
        }

        /** {@return true when the verdict judged its full window} */
        public boolean decided() {
            return judgedSeconds >= horizonSeconds;
        }
    }

    /**
     * How the route assigned the traffic the instances are compared on. Only a design that gives every instance the
     * same mix of messages compares like with like: a per-message split (each message drawn at random by weight) or a
     * mirror (both instances carry the same messages). A split by key gives each instance its own keys, so whatever
     * differs between keys (payload size per tenant, a handler's cost) differs between the instances too.
     */
    public enum Design {
        /** A split by key hash: a key's messages stay on one instance; keyless messages are weighted at random. */
        SPLIT_BY_KEY("split-by-key", "split by key (sticky)", "each key's messages go to the instance its hash picks, so "
                + "the instances carry different keys (keyless messages are weighted at random); Route.split(weights)"
                + ".perMessage() or a mirror gives both the same mix of messages"),
        /** A split that draws every message's instance at random by weight. */
        SPLIT_PER_MESSAGE("split-per-message", "split per message", "every message's instance is drawn at random by "
                + "weight, so the instances carry the same mix of keys and payloads (a key's order across them is given up)"),
        /** A mirror: the primary and the shadow carry the same messages. */
        MIRROR("mirror", "mirror (paired on the same messages)", "both instances carry every message (the shadow through "
                + "a bounded buffer, which may drop), so their figures are of the same messages"),
        /** A failover route: the secondary carries traffic only while the primary's circuit breaker is open. */
        FAILOVER("failover", "failover", "the secondary carries traffic only while the primary is down, so the instances "
                + "carry different times and messages: not a comparison design"),
        /** A migration: publishes go to the target while the source drains. */
        MIGRATE("migrate", "migrate", "publishes go to the target while the source drains what it holds: not a comparison "
                + "design"),
        /** A single instance. */
        SINGLE("single", "single", "one instance carries every message: nothing to compare it with on this route"),
        /** A report of every destination whose routes differ in design. */
        MIXED("mixed", "mixed", "the destinations' routes differ in design; report one destination to see its design"),
        /** Not known (a comparison outside a routed Switchboard). */
        UNKNOWN("unknown", "unknown", "the comparison was not told how the traffic was assigned");

        private final String id;
        private final String text;
        private final String explanation;

        Design(String id, String text, String explanation) {
            this.id = id;
            this.text = text;
            this.explanation = explanation;
        }

        /** {@return a stable id, as {@link #toJson()} writes it, e.g. {@code split-by-key}} */
        public String id() {
            return id;
        }

        /** {@return the design in a few words, e.g. {@code split by key (sticky)}} */
        public String text() {
            return text;
        }

        /** {@return what the design means for the comparison, in one sentence} */
        public String explanation() {
            return explanation;
        }
    }

    /**
     * A report without events.
     *
     * @param at when the figures were taken
     * @param window the span of time they cover
     * @param destination the destination's name, or null for every destination
     * @param instances the figures of each instance
     * @param verdict the comparison's verdict
     * @param scope whose traffic
     */
    public ComparisonReport(Instant at, Duration window, String destination, List<InstanceFigures> instances, Verdict verdict,
            String scope) {
        this(at, window, destination, instances, verdict, scope, List.of());
    }

    /**
     * Something that happened to a broker instance's client (see {@link io.switchboard.spi.EventKinds}).
     *
     * @param instance the instance
     * @param broker its adapter id
     * @param kind the kind, e.g. {@code rebalance}
     * @param subject what it happened to: a group, a destination, a replica
     * @param detail a short detail, or an empty string
     * @param start when it began
     * @param end when it ended (= start for an instant; now, or start plus the open-span limit, for a span still open)
     * @param open a span whose end was never reported
     * @param span true for an event that lasts, false for an instant
     * @param count how many times an instant happened within its second (1 for a span)
     */
    public record Event(String instance, String broker, String kind, String subject, String detail, Instant start,
            Instant end, boolean open, boolean span, int count) {

        /** {@return one line: time, instance, kind, subject and detail} */
        public String text() {
            StringBuilder b = new StringBuilder();
            b.append(CLOCK.format(start));
            if (span) {
                b.append('-').append(CLOCK.format(end)).append(open ? " (still open)" : "");
            }
            b.append(' ').append(instance).append(": ").append(kind).append(' ').append(subject);
            if (count > 1) {
                b.append(" x").append(count);
            }
            if (!detail.isEmpty()) {
                b.append(" (").append(detail).append(')');
            }
            return b.toString();
        }
    }

    /** Times of events, to the millisecond, UTC. */
    static final java.time.format.DateTimeFormatter CLOCK =
            java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(java.time.ZoneOffset.UTC);

    /**
     * A report of this process's traffic.
     *
     * @param at when the figures were taken
     * @param window the span of time they cover
     * @param destination the destination's name, or null for every destination
     * @param instances the figures of each instance
     * @param verdict the comparison's verdict
     */
    public ComparisonReport(Instant at, Duration window, String destination, List<InstanceFigures> instances, Verdict verdict) {
        this(at, window, destination, instances, verdict, "process");
    }

    /**
     * Latency quantiles of one kind, in milliseconds (NaN without samples).
     *
     * @param samples samples in the window
     * @param p50 median
     * @param p99 99th percentile
     * @param p999 99.9th percentile
     */
    public record Latency(long samples, double p50, double p99, double p999) {}

    /**
     * What an instance's client cost the application over the window: the CPU of its client (the client library's and
     * the adapter's threads, core's handler lanes without the handlers, and the publish calls, sampled one in 64)
     * per message published or consumed, and the bytes on the wire per published message (payload, key and headers,
     * sampled). The client is shared by every destination of the instance, so both are the instance's over every
     * destination, also in a report of one destination.
     *
     * @param cpuMicrosPerMessage client CPU microseconds per message (NaN without messages, or where the JVM has no
     *     thread CPU clock)
     * @param wireBytesPerMessage mean bytes on the wire per published message (NaN without a sampled publish)
     * @param messages messages published and consumed on every destination of the instance in the window
     * @param wireSamples publishes sized
     * @param recordsPerRequest the records each request (or batch) of the client carried over the window, as its adapter
     *     reads them off the client once a second ({@link io.switchboard.spi.BrokerAdapter#recordsPerRequest()}),
     *     weighted by the messages published in each second; NaN when the adapter does not tell. CPU per message falls
     *     as it grows
     */
    public record Cost(double cpuMicrosPerMessage, double wireBytesPerMessage, long messages, long wireSamples,
            double recordsPerRequest) {

        /** No cost measured. */
        public static final Cost UNKNOWN = new Cost(Double.NaN, Double.NaN, 0, 0);

        /**
         * A cost without the batch size.
         *
         * @param cpuMicrosPerMessage client CPU microseconds per message
         * @param wireBytesPerMessage mean bytes on the wire per published message
         * @param messages messages published and consumed on every destination of the instance in the window
         * @param wireSamples publishes sized
         */
        public Cost(double cpuMicrosPerMessage, double wireBytesPerMessage, long messages, long wireSamples) {
            this(cpuMicrosPerMessage, wireBytesPerMessage, messages, wireSamples, Double.NaN);
        }
    }

    /**
     * The requests an instance carried over the window, made with a {@link io.switchboard.Requester} on a Switchboard of
     * several instances: each is the instance's whose publish carried it (its reply comes back through the same
     * instance).
     *
     * @param replies requests whose reply came
     * @param timeouts requests whose time-out passed without a reply
     * @param failures requests that failed otherwise (their publish, the reply's decoding, a close or a cancel)
     * @param timeoutRate timeouts / all requests that ended (NaN without requests)
     * @param latency request published to its reply received, of the requests whose reply came
     */
    public record Requests(long replies, long timeouts, long failures, double timeoutRate, Latency latency) {

        /** No requests. */
        public static final Requests NONE = new Requests(0, 0, 0, Double.NaN, new Latency(0, Double.NaN, Double.NaN,
                Double.NaN));

        /** {@return the requests that ended in the window, however they ended} */
        public long ended() {
            return replies + timeouts + failures;
        }
    }

    /**
     * One instance's figures.
     *
     * @param instance instance name
     * @param broker adapter id
     * @param published publishes acknowledged
     * @param publishFailed publishes failed
     * @param consumed records handed to handlers here
     * @param deadLetters records dead-lettered here
     * @param redeliveries records the broker delivered again
     * @param publishRate acknowledged publishes per second
     * @param consumeRate records consumed per second
     * @param errorRate failed / all publishes (NaN without publishes)
     * @param deadLetterRate dead letters / consumed (NaN without consumption)
     * @param publishLatency publish call to broker acknowledgement
     * @param endToEnd envelope publish time to handler start
     * @param lag records waiting per group of this instance's live subscriptions (per {@code destination/group} in a
     *     report of every destination), as the broker tells, read at most every {@code switchboard.lag-refresh}; groups
     *     whose broker cannot tell are absent
     * @param cost the client's CPU and bytes on the wire per message
     * @param requests the requests the instance carried, {@link Requests#NONE} when the application made none
     */
    public record InstanceFigures(String instance, String broker, long published, long publishFailed, long consumed,
            long deadLetters, long redeliveries, double publishRate, double consumeRate, double errorRate, double deadLetterRate,
            Latency publishLatency, Latency endToEnd, Map<String, Long> lag, Cost cost, Requests requests) {

        /**
         * Copies the lag.
         *
         * @param instance instance name
         * @param broker adapter id
         * @param published publishes acknowledged
         * @param publishFailed publishes failed
         * @param consumed records handed to handlers here
         * @param deadLetters records dead-lettered here
         * @param redeliveries records the broker delivered again
         * @param publishRate acknowledged publishes per second
         * @param consumeRate records consumed per second
         * @param errorRate failed / all publishes
         * @param deadLetterRate dead letters / consumed
         * @param publishLatency publish call to broker acknowledgement
         * @param endToEnd envelope publish time to handler start
         * @param lag records waiting per group
         * @param cost the client's CPU and bytes on the wire per message
         * @param requests the requests the instance carried
         */
        public InstanceFigures {
            lag = Map.copyOf(lag);
            cost = cost == null ? Cost.UNKNOWN : cost;
            requests = requests == null ? Requests.NONE : requests;
        }

        /**
         * Figures without requests.
         *
         * @param instance instance name
         * @param broker adapter id
         * @param published publishes acknowledged
         * @param publishFailed publishes failed
         * @param consumed records handed to handlers here
         * @param deadLetters records dead-lettered here
         * @param redeliveries records the broker delivered again
         * @param publishRate acknowledged publishes per second
         * @param consumeRate records consumed per second
         * @param errorRate failed / all publishes
         * @param deadLetterRate dead letters / consumed
         * @param publishLatency publish call to broker acknowledgement
         * @param endToEnd envelope publish time to handler start
         * @param lag records waiting per group
         * @param cost the client's CPU and bytes on the wire per message
         */
        public InstanceFigures(String instance, String broker, long published, long publishFailed, long consumed,
                long deadLetters, long redeliveries, double publishRate, double consumeRate, double errorRate,
                double deadLetterRate, Latency publishLatency, Latency endToEnd, Map<String, Long> lag, Cost cost) {
            this(instance, broker, published, publishFailed, consumed, deadLetters, redeliveries, publishRate, consumeRate,
                    errorRate, deadLetterRate, publishLatency, endToEnd, lag, cost, Requests.NONE);
        }

        /**
         * Figures without cost.
         *
         * @param instance instance name
         * @param broker adapter id
         * @param published publishes acknowledged
         * @param publishFailed publishes failed
         * @param consumed records handed to handlers here
         * @param deadLetters records dead-lettered here
         * @param redeliveries records the broker delivered again
         * @param publishRate acknowledged publishes per second
         * @param consumeRate records consumed per second
         * @param errorRate failed / all publishes
         * @param deadLetterRate dead letters / consumed
         * @param publishLatency publish call to broker acknowledgement
         * @param endToEnd envelope publish time to handler start
         * @param lag records waiting per group
         */
        public InstanceFigures(String instance, String broker, long published, long publishFailed, long consumed,
                long deadLetters, long redeliveries, double publishRate, double consumeRate, double errorRate,
                double deadLetterRate, Latency publishLatency, Latency endToEnd, Map<String, Long> lag) {
            this(instance, broker, published, publishFailed, consumed, deadLetters, redeliveries, publishRate, consumeRate,
                    errorRate, deadLetterRate, publishLatency, endToEnd, lag, Cost.UNKNOWN);
        }

        /**
         * Figures without lag.
         *
         * @param instance instance name
         * @param broker adapter id
         * @param published publishes acknowledged
         * @param publishFailed publishes failed
         * @param consumed records handed to handlers here
         * @param deadLetters records dead-lettered here
         * @param redeliveries records the broker delivered again
         * @param publishRate acknowledged publishes per second
         * @param consumeRate records consumed per second
         * @param errorRate failed / all publishes
         * @param deadLetterRate dead letters / consumed
         * @param publishLatency publish call to broker acknowledgement
         * @param endToEnd envelope publish time to handler start
         */
        public InstanceFigures(String instance, String broker, long published, long publishFailed, long consumed,
                long deadLetters, long redeliveries, double publishRate, double consumeRate, double errorRate,
                double deadLetterRate, Latency publishLatency, Latency endToEnd) {
            this(instance, broker, published, publishFailed, consumed, deadLetters, redeliveries, publishRate, consumeRate,
                    errorRate, deadLetterRate, publishLatency, endToEnd, Map.of(), Cost.UNKNOWN);
        }
    }

    /**
     * One judged difference.
     *
     * @param figure the figure, e.g. {@code e2e p99}
     * @param ahead the better instance
     * @param behind the worse instance
     * @param aheadValue the better value (ms, or a rate)
     * @param behindValue the worse value
     * @param text one sentence
     * @param explanations the client settings that account for (part of) the difference, each naming the setting, both
     *     sides' values and the like-for-like value; empty when no setting does
     */
    public record Finding(String figure, String ahead, String behind, double aheadValue, double behindValue, String text,
            List<String> explanations, List<String> during, List<String> notes) {

        /**
         * Copies the lists.
         *
         * @param figure the figure
         * @param ahead the better instance
         * @param behind the worse instance
         * @param aheadValue the better value
         * @param behindValue the worse value
         * @param text one sentence
         * @param explanations the settings that account for at least half of the difference ("because ...")
         * @param during the events in whose spans at least half of the behind instance's samples beyond the quantile were
         *     in flight, with the figure without them ("during ...")
         * @param notes what else the reader must know: a setting that accounts for less than half of the difference (and
         *     how much is unexplained), instances that carry different keys (a split by key)
         */
        public Finding {
            explanations = List.copyOf(explanations);
            during = List.copyOf(during);
            notes = List.copyOf(notes);
        }

        /**
         * A finding with settings only.
         *
         * @param figure the figure
         * @param ahead the better instance
         * @param behind the worse instance
         * @param aheadValue the better value
         * @param behindValue the worse value
         * @param text one sentence
         * @param explanations the settings that account for the difference
         */
        public Finding(String figure, String ahead, String behind, double aheadValue, double behindValue, String text,
                List<String> explanations) {
            this(figure, ahead, behind, aheadValue, behindValue, text, explanations, List.of(), List.of());
        }

        /**
         * A finding no setting explains.
         *
         * @param figure the figure
         * @param ahead the better instance
         * @param behind the worse instance
         * @param aheadValue the better value
         * @param behindValue the worse value
         * @param text one sentence
         */
        public Finding(String figure, String ahead, String behind, double aheadValue, double behindValue, String text) {
            this(figure, ahead, behind, aheadValue, behindValue, text, List.of());
        }
    }

    /**
     * The verdict.
     *
     * @param findings significant differences
     * @param notJudged figures not judged, with why (too few samples)
     * @param summary one line: which instance is ahead on what, or "no significant difference"
     * @param settings one line per instance with the client settings that shape its figures (e.g.
     *     {@code a (kafka): linger.ms=5, batch.size=16384, acks=all}), empty when no adapter reports any
     */
    public record Verdict(List<Finding> findings, List<String> notJudged, String summary, List<String> settings,
            List<String> notes) {

        /**
         * Copies the lists.
         *
         * @param findings significant differences
         * @param notJudged figures not judged, with why
         * @param summary one line
         * @param settings one line per instance with its settings
         * @param notes the window's fairness: each instance's first seconds left out (warm-up), loads that differ by more
         *     than 2x (latency and client CPU then not judged) and the split that would compare them like for like
         */
        public Verdict {
            settings = List.copyOf(settings);
            notes = List.copyOf(notes);
        }

        /**
         * A verdict without notes.
         *
         * @param findings significant differences
         * @param notJudged figures not judged, with why
         * @param summary one line
         * @param settings one line per instance with its settings
         */
        public Verdict(List<Finding> findings, List<String> notJudged, String summary, List<String> settings) {
            this(findings, notJudged, summary, settings, List.of());
        }

        /**
         * A verdict without settings.
         *
         * @param findings significant differences
         * @param notJudged figures not judged, with why
         * @param summary one line
         */
        public Verdict(List<Finding> findings, List<String> notJudged, String summary) {
            this(findings, notJudged, summary, List.of());
        }

        /** {@return true when at least one difference is significant} */
        public boolean significant() {
            return !findings.isEmpty();
        }
    }

    /** {@return the figures as a text table followed by the verdict} */
    public String toTable() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "Broker comparison%s over the last %ds (%s)%n",
                destination == null ? "" : " of '" + destination + "'", window.toSeconds(), scope));
        String header = "| figure | " + String.join(" | ", instances.stream().map(i -> i.instance() + " (" + i.broker() + ")").toList()) + " |";
        b.append(header).append('\n').append("|---|").append("---|".repeat(instances.size())).append('\n');
        row(b, "published", i -> Long.toString(i.published()));
        row(b, "publish rate (msg/s)", i -> fmt(i.publishRate()));
        row(b, "consumed", i -> Long.toString(i.consumed()));
        row(b, "consume rate (msg/s)", i -> fmt(i.consumeRate()));
        row(b, "publish p50 / p99 / p99.9 (ms)", i -> latency(i.publishLatency()));
        row(b, "e2e p50 / p99 / p99.9 (ms)", i -> latency(i.endToEnd()));
        row(b, "error rate", i -> pct(i.errorRate()));
        row(b, "dead-letter rate", i -> pct(i.deadLetterRate()));
        row(b, "redeliveries", i -> Long.toString(i.redeliveries()));
        row(b, "consumer lag (records)", i -> i.lag().isEmpty() ? "-" : i.lag().toString());
        row(b, "client CPU per message (us)", i -> fmt(i.cost().cpuMicrosPerMessage()));
        row(b, "wire bytes per message", i -> fmt(i.cost().wireBytesPerMessage()));
        if (instances.stream().anyMatch(i -> !Double.isNaN(i.cost().recordsPerRequest()))) {
            row(b, "records per request", i -> fmt(i.cost().recordsPerRequest()));
        }
        row(b, "samples publish / e2e", i -> i.publishLatency().samples() + " / " + i.endToEnd().samples());
        if (requested()) {
            row(b, "request p50 / p99 / p99.9 (ms)", i -> latency(i.requests().latency()));
            row(b, "requests replied / timed out / failed", i -> i.requests().replies() + " / " + i.requests().timeouts()
                    + " / " + i.requests().failures());
            row(b, "request timeout rate", i -> pct(i.requests().timeoutRate()));
        }
        b.append("Verdict: ").append(verdict.summary()).append('\n');
        if (design != Design.UNKNOWN) {
            b.append("  (design) ").append(design.text()).append(": ").append(design.explanation()).append('\n');
        }
        if (!decided()) {
            b.append(String.format(Locale.ROOT, "  (not yet decided) %d s of %d s judged: judged at z = %.2f, not %.2f, until "
                    + "the window is full, so that reading it while it fills adds no false findings%n", horizon.judgedSeconds(),
                    horizon.horizonSeconds(), horizon.z(), Horizon.Z_FULL));
        }
        for (Finding f : verdict.findings()) {
            b.append("  - ").append(f.text()).append('\n');
            for (String e : f.explanations()) {
                b.append("      because ").append(e).append('\n');
            }
            for (String e : f.during()) {
                b.append("      during ").append(e).append('\n');
            }
            for (String e : f.notes()) {
                b.append("      note: ").append(e).append('\n');
            }
        }
        for (String n : verdict.notJudged()) {
            b.append("  (not judged) ").append(n).append('\n');
        }
        for (String s : verdict.settings()) {
            b.append("  (settings) ").append(s).append('\n');
        }
        for (String s : verdict.notes()) {
            b.append("  (fairness) ").append(s).append('\n');
        }
        if (events.isEmpty()) {
            b.append("  (events) none in the window\n");
        }
        int shown = 0;
        for (Event e : events) {
            if (shown == EVENTS_IN_TABLE) {
                b.append("  (events) ... and ").append(events.size() - shown).append(" more (toJson() lists them all)\n");
                break;
            }
            b.append("  (event) ").append(e.text()).append('\n');
            shown++;
        }
        return b.toString();
    }

    /** {@return true when any instance carried a request in the window: else the report says nothing of requests} */
    private boolean requested() {
        return instances.stream().anyMatch(i -> i.requests().ended() > 0);
    }

    /** The events a table lists; JSON has them all. */
    private static final int EVENTS_IN_TABLE = 20;

    private void row(StringBuilder b, String name, java.util.function.Function<InstanceFigures, String> value) {
        b.append("| ").append(name).append(" | ");
        for (InstanceFigures i : instances) {
            b.append(value.apply(i)).append(" | ");
        }
        b.setLength(b.length() - 1);
        b.append('\n');
    }

    private static String latency(Latency l) {
        return fmt(l.p50()) + " / " + fmt(l.p99()) + " / " + fmt(l.p999());
    }

    private static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String pct(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f%%", v * 100);
    }

    /** {@return the report as JSON (NaN as null)} */
    public String toJson() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("at", at.toString());
        root.put("windowSeconds", window.toSeconds());
        root.put("destination", destination);
        root.put("scope", scope);
        root.put("design", design.id());
        List<Object> list = new ArrayList<>();
        boolean requested = requested();
        for (InstanceFigures i : instances) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("instance", i.instance());
            m.put("broker", i.broker());
            m.put("published", i.published());
            m.put("publishFailed", i.publishFailed());
            m.put("consumed", i.consumed());
            m.put("deadLetters", i.deadLetters());
            m.put("redeliveries", i.redeliveries());
            m.put("publishRate", num(i.publishRate()));
            m.put("consumeRate", num(i.consumeRate()));
            m.put("errorRate", num(i.errorRate()));
            m.put("deadLetterRate", num(i.deadLetterRate()));
            m.put("publishLatencyMs", latencyJson(i.publishLatency()));
            m.put("endToEndLatencyMs", latencyJson(i.endToEnd()));
            m.put("lag", i.lag());
            Map<String, Object> cost = new LinkedHashMap<>();
            cost.put("cpuMicrosPerMessage", num(i.cost().cpuMicrosPerMessage()));
            cost.put("wireBytesPerMessage", num(i.cost().wireBytesPerMessage()));
            cost.put("messages", i.cost().messages());
            cost.put("wireSamples", i.cost().wireSamples());
            if (!Double.isNaN(i.cost().recordsPerRequest())) {
                cost.put("recordsPerRequest", num(i.cost().recordsPerRequest()));
            }
            m.put("cost", cost);
            if (requested) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("replies", i.requests().replies());
                r.put("timeouts", i.requests().timeouts());
                r.put("failures", i.requests().failures());
                r.put("timeoutRate", num(i.requests().timeoutRate()));
                r.put("latencyMs", latencyJson(i.requests().latency()));
                m.put("requests", r);
            }
            list.add(m);
        }
        root.put("instances", list);
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("summary", verdict.summary());
        v.put("significant", verdict.significant());
        v.put("decided", decided());
        v.put("judgedSeconds", horizon.judgedSeconds());
        v.put("horizonSeconds", horizon.horizonSeconds());
        v.put("z", horizon.z());
        List<Object> findings = new ArrayList<>();
        for (Finding f : verdict.findings()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("figure", f.figure());
            m.put("ahead", f.ahead());
            m.put("behind", f.behind());
            m.put("aheadValue", num(f.aheadValue()));
            m.put("behindValue", num(f.behindValue()));
            m.put("text", f.text());
            m.put("explanations", f.explanations());
            m.put("during", f.during());
            m.put("notes", f.notes());
            findings.add(m);
        }
        v.put("findings", findings);
        v.put("notJudged", verdict.notJudged());
        v.put("settings", verdict.settings());
        v.put("notes", verdict.notes());
        root.put("verdict", v);
        List<Object> events = new ArrayList<>();
        for (Event e : this.events) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("instance", e.instance());
            m.put("broker", e.broker());
            m.put("kind", e.kind());
            m.put("subject", e.subject());
            m.put("detail", e.detail());
            m.put("start", e.start().toString());
            m.put("end", e.end().toString());
            m.put("span", e.span());
            m.put("open", e.open());
            m.put("count", e.count());
            events.add(m);
        }
        root.put("events", events);
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Comparison report could not be written as JSON", e);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private static Map<String, Object> latencyJson(Latency l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", l.samples());
        m.put("p50", num(l.p50()));
        m.put("p99", num(l.p99()));
        m.put("p999", num(l.p999()));
        return m;
    }

    private static Double num(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
    }
}
