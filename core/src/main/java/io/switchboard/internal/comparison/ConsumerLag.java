package io.switchboard.internal.comparison;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The consumer lag of a broker instance's live subscriptions: records waiting for each group, as the broker tells
 * (Kafka end offsets minus committed, RabbitMQ queue depth, RocketMQ consumer diff). One cached reading per
 * subscription, refreshed at most every {@code switchboard.lag-refresh} (5 s), serves the comparison report and health,
 * so asking often costs the broker nothing more. Health turns DEGRADED while a group's lag is above
 * {@code switchboard.lag-threshold} (records; 0, the default, turns the check off).
 */
public final class ConsumerLag {

    /** Property: records of lag above which the instance's health is DEGRADED; 0 is off. */
    public static final String THRESHOLD = "switchboard.lag-threshold";
    /** Property: how old a lag reading may be before it is read again. */
    public static final String REFRESH = "switchboard.lag-refresh";

    private final long refreshNanos;
    private final long threshold;
    private final Set<Entry> entries = ConcurrentHashMap.newKeySet();

    /**
     * A registry for one instance.
     *
     * @param refresh how old a reading may be
     * @param threshold records of lag above which {@link #overThreshold()} says so; 0 is off
     */
    public ConsumerLag(Duration refresh, long threshold) {
        this.refreshNanos = refresh.toNanos();
        this.threshold = threshold;
    }

    /** {@return a new entry for a subscription of {@code group} to {@code destination}; its source is set later} */
    public Entry add(String destination, String group) {
        Entry e = new Entry(destination, group);
        entries.add(e);
        return e;
    }

    /**
     * {@return lag per group of {@code destination} (or per {@code destination/group} when null), from each live
     * subscription's cached reading; groups whose broker cannot tell are left out}
     */
    public Map<String, Long> lag(String destination) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Entry e : entries) {
            if (destination == null || destination.equals(e.destination)) {
                long v = e.read();
                if (v >= 0) {
                    out.merge(destination == null ? e.destination + "/" + e.group : e.group, v, Math::max);
                }
            }
        }
        return out;
    }

    /** {@return why health is DEGRADED: the first group whose lag is above the threshold; empty when none or off} */
    public Optional<String> overThreshold() {
        if (threshold <= 0) {
            return Optional.empty();
        }
        for (Entry e : entries) {
            long v = e.read();
            if (v > threshold) {
                return Optional.of("consumer lag of group '" + e.group + "' on '" + e.destination + "' is " + v
                        + " records, above " + THRESHOLD + "=" + threshold);
            }
        }
        return Optional.empty();
    }

    /** One subscription's lag reading. */
    public final class Entry {
        private final String destination;
        private final String group;
        private volatile Supplier<OptionalLong> source = OptionalLong::empty;
        private volatile long value = -1;
        private volatile long readAt;
        private volatile boolean read;

        private Entry(String destination, String group) {
            this.destination = destination;
            this.group = group;
        }

        /** Sets where the reading comes from (the subscription's broker backlog). */
        public void source(Supplier<OptionalLong> source) {
            this.source = source;
        }

        /** Forgets the entry: the subscription closed. */
        public void remove() {
            entries.remove(this);
        }

        /** The cached reading, read again when older than the refresh interval; -1 when the broker cannot tell. */
        long read() {
            long now = System.nanoTime();
            if (!read || now - readAt >= refreshNanos) {
                OptionalLong v = source.get();
                value = v.isPresent() ? v.getAsLong() : -1;
                readAt = now;
                read = true;
            }
            return value;
        }
    }
}
