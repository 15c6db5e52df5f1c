package io.switchboard.it;

import io.switchboard.kafka.KafkaAdapterFactory;
import io.switchboard.rabbit.RabbitAdapterFactory;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.InboundRecord;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Test adapters {@code stalled-kafka} and {@code stalled-rabbitmq}: the real Kafka and RabbitMQ adapters, except that
 * their consumers' delivery threads stall now and then, as a host's or client's hiccup does (a GC pause, a descheduled
 * thread). Stalls come at random times, a Poisson process of mean gap {@value #MEAN_GAP} ms (default 7,500), each
 * parking the thread that delivers the record at hand for a time drawn uniformly from {@value #MIN} to {@value #MAX} ms
 * (defaults 30 and 500); every record that waits behind it is late by what is left of it. Each instance has its own
 * process, so two instances of the same settings stall independently: an A/A pair with the same noise on both sides.
 */
final class StalledAdapters {

    /** Instance property: the mean time between stalls, in milliseconds. */
    static final String MEAN_GAP = "stall.mean-gap-ms";
    /** Instance property: the shortest stall, in milliseconds. */
    static final String MIN = "stall.min-ms";
    /** Instance property: the longest stall, in milliseconds. */
    static final String MAX = "stall.max-ms";

    private static final Map<String, Stalls> BY_INSTANCE = new ConcurrentHashMap<>();

    private StalledAdapters() {}

    /** {@return the stalls of instance {@code name} so far: how many and their total in ms; 0 when none} */
    static long[] stalls(String name) {
        Stalls s = BY_INSTANCE.get(name);
        return s == null ? new long[] {0, 0} : new long[] {s.count.sum(), s.totalMillis.sum()};
    }

    /** Forgets every instance's stalls (call before a test). */
    static void reset() {
        BY_INSTANCE.clear();
    }

    /** {@code stalled-kafka}. */
    public static final class Kafka extends HeldAdapters.Wrapping {
        public Kafka() {
            super("stalled-kafka", new KafkaAdapterFactory(), StalledAdapters::stalled);
        }
    }

    /** {@code stalled-rabbitmq}. */
    public static final class Rabbit extends HeldAdapters.Wrapping {
        public Rabbit() {
            super("stalled-rabbitmq", new RabbitAdapterFactory(), StalledAdapters::stalled);
        }
    }

    private static BrokerAdapter stalled(BrokerAdapter adapter, BrokerConfig config) {
        Stalls stalls = new Stalls(config.getLong(MEAN_GAP, 7_500), config.getLong(MIN, 30), config.getLong(MAX, 500));
        BY_INSTANCE.put(config.instanceName(), stalls);
        return HeldAdapters.beforeEachRecord(adapter, stalls);
    }

    /** One instance's stall process: the first record delivered at or after the next stall's time waits it out. */
    private static final class Stalls implements Consumer<InboundRecord> {
        private final long meanGapNanos;
        private final long minNanos;
        private final long maxNanos;
        private final AtomicLong next;
        final LongAdder count = new LongAdder();
        final LongAdder totalMillis = new LongAdder();

        Stalls(long meanGapMillis, long minMillis, long maxMillis) {
            this.meanGapNanos = meanGapMillis * 1_000_000;
            this.minNanos = minMillis * 1_000_000;
            this.maxNanos = Math.max(minMillis, maxMillis) * 1_000_000;
            this.next = new AtomicLong(System.nanoTime() + gap());
        }

        private long gap() {
            return (long) (-Math.log(1 - ThreadLocalRandom.current().nextDouble()) * meanGapNanos);
        }

        @Override
        public void accept(InboundRecord record) {
            long due = next.get();
            long now = System.nanoTime();
            if (now < due || !next.compareAndSet(due, Long.MAX_VALUE)) {
                return; // not yet, or another delivery thread of this instance is stalling
            }
            long stall = minNanos + ThreadLocalRandom.current().nextLong(maxNanos - minNanos + 1);
            long until = now + stall;
            for (long left = stall; left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            count.increment();
            totalMillis.add(stall / 1_000_000);
            next.set(System.nanoTime() + gap());
        }
    }
}
