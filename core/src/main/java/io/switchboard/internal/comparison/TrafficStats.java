package io.switchboard.internal.comparison;

import io.switchboard.internal.metrics.ConsumeRecorder;
import io.switchboard.internal.metrics.PublishRecorder;
import io.switchboard.internal.metrics.RequestRecorder;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The traffic one broker instance carried for one destination, kept as a ring of one-second
 * slices so that any recent window can be read: counts, and publish, end-to-end and request-to-reply
 * latency histograms (microseconds). Recording is wait-free and allocation-free (LongAdder and
 * HdrHistogram's {@link Recorder}); {@link #roll(long)} moves the last second into the ring and is
 * called once a second by the routing ticker; reads happen on report, never per message.
 */
public final class TrafficStats implements PublishRecorder, ConsumeRecorder, RequestRecorder {

    private static final long MAX_MICROS = TimeUnit.HOURS.toMicros(1);
    /** Counts a slice keeps: the six of publishing and consuming, then replies, request time-outs, failed requests. */
    private static final int COUNTS = 9;

    final String instance;
    final String broker;
    final String destination;

    private final LongAdder published = new LongAdder();
    private final LongAdder publishFailed = new LongAdder();
    private final LongAdder consumed = new LongAdder();
    private final LongAdder handleFailed = new LongAdder();
    private final LongAdder deadLetters = new LongAdder();
    private final LongAdder redeliveries = new LongAdder();
    private final Recorder publishLatency = new Recorder(2);
    private final Recorder endToEnd = new Recorder(2);
    private final LongAdder replies = new LongAdder();
    private final LongAdder requestTimeouts = new LongAdder();
    private final LongAdder requestFailed = new LongAdder();
    private final Recorder requestLatency = new Recorder(2);

    private final Slice[] ring;
    private long lastRolledSecond = -1;
    /** The first second that carried traffic, or {@link Long#MAX_VALUE} before any did. */
    private volatile long firstTraffic = Long.MAX_VALUE;
    private final long[] last = new long[COUNTS];

    /**
     * Statistics made during second {@code createdSecond}: the first second they close is that
     * one, so traffic recorded before the first roll is never put into a second before it.
     */
    TrafficStats(String instance, String broker, String destination, int seconds, long createdSecond) {
        this.instance = instance;
        this.broker = broker;
        this.destination = destination;
        this.ring = new Slice[seconds];
        this.lastRolledSecond = createdSecond - 1;
    }

    // ---- recording, on publisher callbacks and lane threads ----

    /** {@return true: the comparison reads publish and end-to-end latencies} */
    @Override
    public boolean timed() {
        return true;
    }

    @Override
    public void published(long startNanos, long endNanos, int payloadBytes, boolean ok) {
        if (ok) {
            published.increment();
            publishLatency.recordValue(Math.min(MAX_MICROS, Math.max(0, (endNanos - startNanos) / 1000)));
        } else {
            publishFailed.increment();
        }
    }

    @Override
    public void endToEnd(Instant publishedAt, long nowMicros) {
        consumed.increment();
        if (publishedAt != null) {
            long micros = nowMicros - (publishedAt.getEpochSecond() * 1_000_000L + publishedAt.getNano() / 1000);
            endToEnd.recordValue(Math.min(MAX_MICROS, Math.max(0, micros)));
        }
    }

    @Override
    public void endToEndSince(long publishedEpochMillis, long nowMicros) {
        consumed.increment();
        if (publishedEpochMillis >= 0) {
            endToEnd.recordValue(Math.min(MAX_MICROS, Math.max(0, nowMicros - publishedEpochMillis * 1000)));
        }
    }

    @Override
    public void handled(Outcome outcome, long startNanos) {
        if (outcome == Outcome.RETRY || outcome == Outcome.DEAD_LETTER || outcome == Outcome.DROPPED) {
            handleFailed.increment();
        }
    }

    @Override
    public void redelivered() {
        redeliveries.increment();
    }

    @Override
    public void deadLettered(String reason) {
        deadLetters.increment();
    }

    /** A request to this destination that this instance carried (its reply came through it, when one came). */
    @Override
    public void requested(int outcome, long nanos) {
        if (outcome == SUCCESS) {
            replies.increment();
            requestLatency.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1000)));
        } else if (outcome == TIMEOUT) {
            requestTimeouts.increment();
        } else {
            requestFailed.increment();
        }
    }

    @Override
    public void close() {
        // the statistics outlive a subscription: the comparison window still covers what it consumed
    }

    // ---- windows, on the ticker and report threads ----

    /** Closes the slice of the second that just ended. */
    synchronized void roll(long second) {
        if (second <= lastRolledSecond) {
            return; // closed already, or before these statistics existed
        }
        int i = (int) Math.floorMod(second, (long) ring.length);
        Slice slice = ring[i];
        if (slice == null) {
            slice = new Slice();
            ring[i] = slice;
        }
        slice.second = second;
        long[] now = {published.sum(), publishFailed.sum(), consumed.sum(), handleFailed.sum(), deadLetters.sum(),
            redeliveries.sum(), replies.sum(), requestTimeouts.sum(), requestFailed.sum()};
        for (int k = 0; k < now.length; k++) {
            slice.counts[k] = now[k] - last[k];
            last[k] = now[k];
        }
        if (firstTraffic == Long.MAX_VALUE && slice.counts[0] + slice.counts[1] + slice.counts[2] > 0) {
            firstTraffic = second;
        }
        slice.publishLatency = publishLatency.getIntervalHistogram(slice.publishLatency);
        slice.endToEnd = endToEnd.getIntervalHistogram(slice.endToEnd);
        slice.requestLatency = requestLatency.getIntervalHistogram(slice.requestLatency);
        lastRolledSecond = second;
    }

    /** {@return the first second that carried traffic, {@link Long#MAX_VALUE} before any did} */
    long firstTraffic() {
        return firstTraffic;
    }

    /** What the slices of seconds {@code fromSecond} (inclusive) to {@code toSecond} (inclusive) hold, added into {@code into}. */
    synchronized void addTo(Window into, long fromSecond, long toSecond) {
        for (Slice s : ring) {
            if (s != null && s.second >= fromSecond && s.second <= toSecond) {
                into.add(s.counts, s.publishLatency, s.endToEnd, s.requestLatency);
            }
        }
    }

    /** Messages published in seconds {@code fromSecond..toSecond}. */
    synchronized long published(long fromSecond, long toSecond) {
        long n = 0;
        for (Slice s : ring) {
            if (s != null && s.second >= fromSecond && s.second <= toSecond) {
                n += s.counts[0];
            }
        }
        return n;
    }

    /** Messages published and consumed in seconds {@code fromSecond..toSecond}. */
    synchronized long messages(long fromSecond, long toSecond) {
        long n = 0;
        for (Slice s : ring) {
            if (s != null && s.second >= fromSecond && s.second <= toSecond) {
                n += s.counts[0] + s.counts[2];
            }
        }
        return n;
    }

    /** One second of traffic. */
    private static final class Slice {
        long second = Long.MIN_VALUE;
        final long[] counts = new long[COUNTS];
        Histogram publishLatency;
        Histogram endToEnd;
        Histogram requestLatency;
    }

    /** Traffic summed over a window: counts and latency histograms in microseconds. */
    public static final class Window {
        long published;
        long publishFailed;
        long consumed;
        long handleFailed;
        long deadLetters;
        long redeliveries;
        /** Requests whose reply came through the instance, whose time-out passed, that failed otherwise. */
        long replies;
        long requestTimeouts;
        long requestFailed;
        /** The instance's client CPU in the window (every destination's: the client is shared). */
        long cpuNanos;
        /** Bytes on the wire of the sampled publishes, and how many were sampled (every destination's). */
        long wireBytes;
        long wireSamples;
        /** Messages published and consumed on every destination of the instance: what the CPU is spread over. */
        long costMessages;
        /** The records per request the instance's client sent in the window (NaN: its adapter does not tell). */
        double recordsPerRequest = Double.NaN;
        /** The first second the window covers once the warm-up is left out (Long.MAX_VALUE: no traffic judged). */
        long fromSecond = Long.MAX_VALUE;
        /** Messages published and consumed in the warm-up seconds left out of the window. */
        long leftOut;
        /** The latest second whose traffic was left out as warm-up, or Long.MIN_VALUE. */
        long warmUpUntil = Long.MIN_VALUE;
        /** The earliest first second of traffic among what the window adds up, or Long.MAX_VALUE. */
        long firstTraffic = Long.MAX_VALUE;
        final Histogram publishLatency = new Histogram(2);
        final Histogram endToEnd = new Histogram(2);
        /** Request to reply, of the requests whose reply came. */
        final Histogram requestLatency = new Histogram(2);

        /** Publishes the broker confirmed in the window. */
        public long published() {
            return published;
        }

        /** Publishes that failed in the window. */
        public long publishFailed() {
            return publishFailed;
        }

        /** Publish latency in microseconds over the window (read it, do not change it). */
        public Histogram publishLatency() {
            return publishLatency;
        }

        /** {@return the requests that ended in the window, however they ended} */
        long requests() {
            return replies + requestTimeouts + requestFailed;
        }

        void add(long[] counts, Histogram publish, Histogram e2e, Histogram request) {
            published += counts[0];
            publishFailed += counts[1];
            consumed += counts[2];
            handleFailed += counts[3];
            deadLetters += counts[4];
            redeliveries += counts[5];
            replies += counts[6];
            requestTimeouts += counts[7];
            requestFailed += counts[8];
            if (publish != null) {
                publishLatency.add(publish);
            }
            if (e2e != null) {
                endToEnd.add(e2e);
            }
            if (request != null) {
                requestLatency.add(request);
            }
        }

        /** Adds another window's traffic (its counts and histograms; not its cost or warm-up). */
        void add(Window other) {
            add(new long[] {other.published, other.publishFailed, other.consumed, other.handleFailed, other.deadLetters,
                other.redeliveries, other.replies, other.requestTimeouts, other.requestFailed}, other.publishLatency,
                other.endToEnd, other.requestLatency);
        }
    }
}
