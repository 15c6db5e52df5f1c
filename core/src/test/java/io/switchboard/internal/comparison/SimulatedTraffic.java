package io.switchboard.internal.comparison;

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

    /** Records a publish and a delivery of {@code micros} each on {@code instance}, in the current second. */
    void sample(String instance, long publishMicros, long e2eMicros) {
        TrafficStats s = book.stats(instance, instance.equals("a") ? "kafka" : "rabbitmq", "orders");
        s.published(0, publishMicros * 1000, 100, true);
        s.endToEnd(Instant.EPOCH, e2eMicros);
    }

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
