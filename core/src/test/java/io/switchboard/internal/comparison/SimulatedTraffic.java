package io.switchboard.internal.comparison;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.PerformanceSetting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two instances' traffic fed second by second into a traffic book on a clock of its own, judged by the comparison's
 * engine: the verdict's code on samples whose truth is known.
 */
final class SimulatedTraffic {

    final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
    final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    };
    final TrafficBook book;
    final Timeline timeline = new Timeline(clock, Duration.ofMinutes(10));
    final ComparisonEngine engine;

    SimulatedTraffic(int windowSeconds, long warmUp, Map<String, List<PerformanceSetting>> settings) {
        book = new TrafficBook(windowSeconds, clock);
        timeline.register("a", "kafka");
        timeline.register("b", "rabbitmq");
        engine = new ComparisonEngine(book, List.of("a", "b"), Map.of("a", "kafka", "b", "rabbitmq"), settings, Map.of(), 200,
                0.10, timeline, warmUp);
    }

    /** Tells the engine how the route assigned the traffic, as a router would. */
    void design(io.switchboard.routing.ComparisonReport.Design design, boolean keyed) {
        engine.designs(new ComparisonEngine.Designs() {
            @Override
            public io.switchboard.routing.ComparisonReport.Design design(String destination) {
                return design;
            }

            @Override
            public boolean keyed(String destination) {
                return keyed;
            }
        });
    }

    /**
     * Keyed traffic whose keys differ in cost: {@code count} keys with Zipf frequencies (key k, from 1, has weight 1/k^s)
     * and each key a latency multiplier drawn once, log-normal with median 1 ({@code sigma}): the payload size of a
     * tenant, say, which makes all of its messages slower or faster on any broker.
     */
    static final class Keys {

        private final double[] cumulative;
        final double[] multiplier;

        Keys(java.util.Random random, int count, double s, double sigma) {
            cumulative = new double[count];
            multiplier = new double[count];
            double sum = 0;
            for (int k = 0; k < count; k++) {
                sum += 1 / Math.pow(k + 1, s);
                cumulative[k] = sum;
                multiplier[k] = Math.exp(sigma * random.nextGaussian());
            }
            for (int k = 0; k < count; k++) {
                cumulative[k] /= sum;
            }
        }

        /** {@return a key drawn by its frequency} */
        int draw(java.util.Random random) {
            int i = java.util.Arrays.binarySearch(cumulative, random.nextDouble());
            return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
        }

        /** {@return the keys' count} */
        int count() {
            return multiplier.length;
        }
    }

    /** Records a publish and a delivery of {@code micros} each on {@code instance}, in the current second. */
    void sample(String instance, long publishMicros, long e2eMicros) {
        TrafficStats s = stats(instance);
        s.published(0, publishMicros * 1000, 100, true);
        s.endToEnd(Instant.EPOCH, e2eMicros);
    }

    /** Records a publish the broker confirmed {@code micros} after it began on {@code instance}, in the current second. */
    void publish(String instance, long micros) {
        stats(instance).published(0, micros * 1000, 100, true);
    }

    /** Records a publish that failed on {@code instance}, in the current second. */
    void publishFailed(String instance) {
        stats(instance).published(0, 0, 100, false);
    }

    /** Records, on {@code instance}, a request to "orders" whose reply came {@code micros} after it was made. */
    void reply(String instance, long micros) {
        stats(instance).requested(TrafficStats.SUCCESS, micros * 1000);
    }

    /** Records, on {@code instance}, a request to "orders" whose time-out passed. */
    void timeout(String instance) {
        stats(instance).requested(TrafficStats.TIMEOUT, 5_000_000_000L);
    }

    private TrafficStats stats(String instance) {
        return book.stats(instance, instance.equals("a") ? "kafka" : "rabbitmq", "orders");
    }

    /**
     * Called at the start of each second {@code s}: a rebalance of {@code group} on {@code instance} that begins 300 ms
     * into second {@code from} and ends 700 ms into second {@code to}.
     */
    void rebalance(int s, String instance, String group, int from, int to) {
        span(s, instance, EventKinds.REBALANCE, group, "after replica-2 joined", from, to);
    }

    /**
     * Called at the start of each second {@code s}: a span of {@code kind} on {@code instance} that begins 300 ms into
     * second {@code from} and ends 700 ms into second {@code to}.
     */
    void span(int s, String instance, String kind, String subject, String detail, int from, int to) {
        if (s == from) {
            millis.set(at(300));
            span = timeline.of(instance).begin(kind, subject, detail);
        }
        if (s == to) {
            millis.set(at(700));
            span.end();
        }
    }

    private ClientEvents.Span span;

    /** Closes the current second and moves the clock to the next one. */
    void nextSecond() {
        long second = millis.get() / 1000;
        book.roll(second);
        millis.set((second + 1) * 1000);
    }

    /** The epoch millisecond {@code ms} into the current second. */
    long at(long ms) {
        return millis.get() / 1000 * 1000 + ms;
    }
}
