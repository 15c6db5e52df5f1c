package io.switchboard.internal.comparison;

import org.HdrHistogram.Histogram;

/**
 * The latencies the verdict judges, each by the same rule ({@link ComparisonEngine}) and explained the same way
 * ({@link Tails}): a figure is named by the kind's word and a quantile, e.g. {@code request p99}.
 */
enum LatencyKind {

    /** Publish call to the broker's acknowledgement. */
    PUBLISH("publish"),
    /** The envelope's publish time to the handler's start. */
    E2E("e2e"),
    /** A request's publish call to its reply's arrival (replies only; time-outs are counted beside it). */
    REQUEST("request");

    /** The word a figure's name starts with. */
    final String word;

    LatencyKind(String word) {
        this.word = word;
    }

    /** {@return this kind's histogram of {@code w}, or null without a window} */
    Histogram of(TrafficStats.Window w) {
        if (w == null) {
            return null;
        }
        return switch (this) {
            case PUBLISH -> w.publishLatency;
            case E2E -> w.endToEnd;
            case REQUEST -> w.requestLatency;
        };
    }

    /** {@return the kind a figure such as {@code e2e p99} is of, or null for a figure that is no latency} */
    static LatencyKind ofFigure(String figure) {
        for (LatencyKind k : values()) {
            if (figure.startsWith(k.word + " p")) {
                return k;
            }
        }
        return null;
    }
}
