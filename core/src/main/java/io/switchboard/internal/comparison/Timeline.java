package io.switchboard.internal.comparison;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.routing.ComparisonReport.Event;
import io.switchboard.spi.ClientEvents;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What happened to each broker instance of a Switchboard: the events that shape latency and cost (rebalances,
 * connection loss, route changes, GC pauses, ...), each with its time, subject and detail, kept in a ring of
 * {@value #CAPACITY} events an instance. Adapters report through the {@link ClientEvents} of their
 * {@code BrokerConfig}; core through {@link #of(String)} and {@link #everywhere}. The same instant event of a kind and
 * subject within one second is kept once with a count, so a burst (a refused publish a message) costs one entry. A
 * span never ended is closed {@code openBound} after it began and reported as open. Counted as
 * {@code switchboard.events} (tags {@code kind}, {@code broker}, {@code instance}), one counter per kind and instance.
 * Events are rare: recording takes a lock, never on a message's path.
 */
public final class Timeline {

    /** Events kept per instance. */
    public static final int CAPACITY = 1000;

    private final Clock clock;
    private final long openBoundMillis;
    private final Map<String, Ring> rings = new ConcurrentHashMap<>();
    private final List<Ring> order = new CopyOnWriteArrayList<>();
    private volatile MeterRegistry registry;

    /**
     * A timeline.
     *
     * @param clock the clock events are timed by
     * @param openBound how long a span may stay open before it is closed and reported as open
     */
    public Timeline(Clock clock, Duration openBound) {
        this.clock = clock;
        this.openBoundMillis = openBound.toMillis();
    }

    /** {@return the sink of {@code instance} of adapter {@code broker}, made on first use} */
    public ClientEvents register(String instance, String broker) {
        return rings.computeIfAbsent(instance, i -> {
            Ring r = new Ring(i, broker);
            order.add(r);
            MeterRegistry m = registry;
            if (m != null) {
                r.bindTo(m);
            }
            return r;
        });
    }

    /** {@return the sink of a registered instance, or {@link ClientEvents#NONE}} */
    public ClientEvents of(String instance) {
        Ring r = rings.get(instance);
        return r == null ? ClientEvents.NONE : r;
    }

    /** Records an instant event on every instance (a replica joining, a GC pause). */
    public void everywhere(String kind, String subject, String detail) {
        for (Ring r : order) {
            r.instant(kind, subject, detail);
        }
    }

    /** Records a finished span on every instance, from {@code startMillis} to {@code endMillis} (epoch). */
    public void spanEverywhere(String kind, String subject, String detail, long startMillis, long endMillis) {
        for (Ring r : order) {
            r.add(kind, subject, detail, startMillis, endMillis);
        }
    }

    /** Registers the {@code switchboard.events} counters of every kind seen and every kind to come. */
    public synchronized void bindTo(MeterRegistry meters) {
        if (registry != null) {
            return;
        }
        registry = meters;
        for (Ring r : order) {
            r.bindTo(meters);
        }
    }

    /** {@return the events of {@code instance} that overlap epoch milliseconds {@code from..to}, oldest first} */
    public List<Event> events(String instance, long fromMillis, long toMillis) {
        Ring r = rings.get(instance);
        return r == null ? List.of() : r.read(fromMillis, toMillis, clock.millis());
    }

    /** {@return every instance's events that overlap {@code from..to}, in instance order, oldest first} */
    public List<Event> events(List<String> instances, long fromMillis, long toMillis) {
        List<Event> out = new ArrayList<>();
        for (String i : instances) {
            out.addAll(events(i, fromMillis, toMillis));
        }
        return out;
    }

    /** {@return the events of {@code instance} recorded so far, by kind (for tests and the actuator)} */
    public Map<String, Long> counts(String instance) {
        Ring r = rings.get(instance);
        Map<String, Long> out = new java.util.TreeMap<>();
        if (r != null) {
            r.counts.forEach((k, v) -> out.put(k, v.get()));
        }
        return out;
    }

    /** One recorded event; {@code end} is -1 while a span is open, {@code start} for an instant. */
    private static final class Entry {
        final String kind;
        final String subject;
        final String detail;
        final long start;
        final boolean span;
        long end;
        int count = 1;

        Entry(String kind, String subject, String detail, long start, long end, boolean span) {
            this.kind = kind;
            this.subject = subject;
            this.detail = detail;
            this.start = start;
            this.end = end;
            this.span = span;
        }
    }

    /** One instance's ring. */
    private final class Ring implements ClientEvents {
        final String instance;
        final String broker;
        final Entry[] entries = new Entry[CAPACITY];
        int next;
        final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
        volatile MeterRegistry meters;

        Ring(String instance, String broker) {
            this.instance = instance;
            this.broker = broker;
        }

        void bindTo(MeterRegistry m) {
            meters = m;
            counts.forEach((kind, n) -> counter(m, kind, n));
        }

        private void counter(MeterRegistry m, String kind, AtomicLong n) {
            FunctionCounter.builder("switchboard.events", n, AtomicLong::get)
                    .description("Events on the comparison's timeline: rebalances, connection loss, route changes, GC pauses, ...")
                    .tags("kind", kind, "broker", broker, "instance", instance).register(m);
        }

        private void count(String kind) {
            AtomicLong n = counts.get(kind);
            if (n == null) {
                n = counts.computeIfAbsent(kind, k -> new AtomicLong());
                MeterRegistry m = meters;
                if (m != null) {
                    counter(m, kind, n);
                }
            }
            n.incrementAndGet();
        }

        @Override
        public void instant(String kind, String subject, String detail) {
            long now = clock.millis();
            try {
                count(kind);
                synchronized (this) {
                    Entry last = entries[Math.floorMod(next - 1, CAPACITY)];
                    if (last != null && !last.span && last.kind.equals(kind) && last.subject.equals(subject)
                            && last.start / 1000 == now / 1000) {
                        last.count++;
                        return;
                    }
                    put(new Entry(kind, String.valueOf(subject), detail == null ? "" : detail, now, now, false));
                }
            } catch (RuntimeException e) {
                // never throws into an adapter's callback
            }
        }

        void add(String kind, String subject, String detail, long start, long end) {
            count(kind);
            synchronized (this) {
                put(new Entry(kind, subject, detail, start, end, true));
            }
        }

        @Override
        public Span begin(String kind, String subject, String detail) {
            long now = clock.millis();
            Entry e = new Entry(kind, String.valueOf(subject), detail == null ? "" : detail, now, -1, true);
            try {
                count(kind);
                synchronized (this) {
                    put(e);
                }
            } catch (RuntimeException ex) {
                return Span.NONE;
            }
            return () -> {
                synchronized (Ring.this) {
                    if (e.end < 0) {
                        e.end = Math.max(e.start, clock.millis());
                    }
                }
            };
        }

        private void put(Entry e) {
            entries[next] = e;
            next = (next + 1) % CAPACITY;
        }

        synchronized List<Event> read(long from, long to, long now) {
            List<Event> out = new ArrayList<>();
            for (int k = 0; k < CAPACITY; k++) {
                Entry e = entries[(next + k) % CAPACITY];
                if (e == null) {
                    continue;
                }
                boolean open = e.end < 0;
                long end = open ? Math.min(now, e.start + openBoundMillis) : e.end;
                if (e.start <= to && end >= from) {
                    out.add(new Event(instance, broker, e.kind, e.subject, e.detail, Instant.ofEpochMilli(e.start),
                            Instant.ofEpochMilli(end), open, e.span, e.count));
                }
            }
            out.sort(java.util.Comparator.comparing(Event::start));
            return out;
        }
    }
}
