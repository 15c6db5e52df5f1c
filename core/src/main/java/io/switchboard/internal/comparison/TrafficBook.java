package io.switchboard.internal.comparison;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The traffic statistics of every (instance, destination) pair of one multi-instance Switchboard,
 * kept for a window of {@code seconds}. Publishers and subscriptions find their {@link TrafficStats}
 * once, when they are built; the routing ticker rolls them every second.
 */
public final class TrafficBook {

    private final int seconds;
    private final Clock clock;
    private final Map<String, TrafficStats> stats = new ConcurrentHashMap<>();
    private final long startSecond;
    private final ClientCost cost;
    private final BatchSizes batches;

    /** A book keeping {@code seconds} of history. */
    public TrafficBook(int seconds, Clock clock) {
        this.seconds = seconds;
        this.clock = clock;
        this.startSecond = clock.millis() / 1000;
        this.cost = new ClientCost(seconds, this::nowSecond);
        this.batches = new BatchSizes(seconds);
    }

    /** The records per request each instance's client sent. */
    public BatchSizes batches() {
        return batches;
    }

    /** What each instance's client costs. */
    public ClientCost cost() {
        return cost;
    }

    /** Whole seconds the book has been recording (at least 1). */
    long age() {
        return Math.max(1, nowSecond() - startSecond);
    }

    /** The statistics of one instance and destination, created on first use. */
    public TrafficStats stats(String instance, String broker, String destination) {
        return stats.computeIfAbsent(instance + '\u0000' + destination, k -> new TrafficStats(instance, broker, destination, seconds, nowSecond()));
    }

    /** The current second of the book's clock. */
    public long nowSecond() {
        return clock.millis() / 1000;
    }

    /** Closes the second that just ended in every statistics. */
    public void roll() {
         roll(nowSecond() - 1);
    }

    /** Closes second {@code closing} (and what was recorded before it since the last roll) in every statistics. */
    public void roll(long closing) {
        for (TrafficStats s : stats.values()) {
            s.roll(closing);
        }
        cost.roll(closing);
        batches.roll(closing, all());
    }

    /** Seconds of history kept. */
    public int seconds() {
        return seconds;
    }

    /** Every statistics (a copy). */
    List<TrafficStats> all() {
        return new ArrayList<>(stats.values());
    }
}
