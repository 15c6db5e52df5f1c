package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import io.switchboard.routing.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One clock across brokers (issue 87): Kafka and RabbitMQ made to have the same true end-to-end latency, by holding
 * every record until a fixed time after it was published ({@link HeldAdapters}), give no end-to-end finding at the
 * median, where a clock of another resolution or origin on one side (Kafka's millisecond {@code CreateTime}, read +0.5 ms
 * on average) shows. The same pair with a planted difference of 0.8 ms, about that bias, is found the right way.
 *
 * <p>The hold (4 ms) is longer than either broker's own median leg here (Kafka with {@code linger.ms=0}: about 1-2 ms;
 * RabbitMQ: under 1 ms), so each median is the hold; a tail beyond it is the broker's own, and is printed, not asserted.
 */
@DisplayName("One clock: Kafka and RabbitMQ with the same true latency are not judged apart on e2e p50")
@Timeout(300)
class OneClockOnRealBrokersTest extends RoutingTestSupport {

    private static final long HOLD_MICROS = 4_000;
    private static final int RATE = 400;

    @Test
    @DisplayName("equal true latency: no e2e p50 finding in 20 windows of 5 s; b held 0.8 ms longer: found behind on e2e p50 in at least 4 of 5")
    void equalTrueLatencyGivesNoClockFinding() throws Exception {
        // both pairs run at once: the planted one is judged over the first 5 windows of the equal one's 20
        Pair equal = pair("equal", HOLD_MICROS);
        Pair planted = pair("planted", HOLD_MICROS + 800);
        List<String> equalFound = new ArrayList<>();
        List<String> plantedFound = new ArrayList<>();
        try {
            Thread.sleep(10_000); // the groups settle, the JIT warms
            for (int r = 0; r < 20; r++) {
                Thread.sleep(5_000);
                equalFound.add(e2eP50(equal, r));
                if (r < 5) {
                    plantedFound.add(e2eP50(planted, r));
                }
            }
        } finally {
            equal.stop();
            planted.stop();
        }
        System.out.printf("Kafka vs RabbitMQ, same true latency: %d of 20 windows with an e2e p50 finding; "
                + "RabbitMQ held 0.8 ms longer: %d of 5 windows found it%n",
                equalFound.stream().filter(w -> !w.isEmpty()).count(), plantedFound.stream().filter(w -> !w.isEmpty()).count());
        assertThat(equalFound).as("windows with an e2e p50 finding between brokers of the same true latency")
                .allSatisfy(w -> assertThat(w).isEmpty());
        assertThat(plantedFound.stream().filter(w -> w.contains("a is ahead on e2e p50")).count())
                .as("windows that found b's planted 0.8 ms, the right way: %s", plantedFound).isGreaterThanOrEqualTo(4);
    }

    /** A Switchboard and its load: Kafka a, RabbitMQ b, split 50/50 per message (keyless). */
    private record Pair(String purpose, String destination, Switchboard sb, AtomicBoolean stopped, Thread load) {
        void stop() throws InterruptedException {
            stopped.set(true);
            load.join(10_000);
        }
    }

    /**
     * Starts Kafka as a, RabbitMQ as b, split 50/50 per message (keyless), each record held until its publish time
     * plus {@link #HOLD_MICROS} (a) or {@code bHoldMicros} (b), loaded at {@link #RATE} msg/s.
     */
    private Pair pair(String purpose, long bHoldMicros) throws Exception {
        String d = destination(purpose);
        Switchboard sb = closeAfter(builder()
                .instance("a", "held-kafka", props(kafka(), Map.of("kafka.linger.ms", "0",
                        HeldAdapters.HOLD, Long.toString(HOLD_MICROS))))
                .instance("b", "held-rabbitmq", props(rabbit(), Map.of(HeldAdapters.HOLD, Long.toString(bHoldMicros))))
                .route(d, Route.split(Map.of("a", 50, "b", 50)))
                .property("switchboard.comparison.warm-up", "0s").build());
        sb.subscriber(d, TEXT).group("g").subscribe((m, c) -> { }).ready().toCompletableFuture()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        AtomicBoolean stop = new AtomicBoolean();
        return new Pair(purpose, d, sb, stop, timed(sb.publisher(d, TEXT).build(), stop));
    }

    /** {@return the text of the pair's e2e p50 findings over the last 5 s, empty when there is none} */
    private static String e2eP50(Pair pair, int window) {
        ComparisonReport report = pair.sb().comparison().report(pair.destination(), Duration.ofSeconds(5));
        if (window == 0) {
            System.out.print(report.toTable());
        }
        System.out.printf("%s window %d: %s%n", pair.purpose(), window,
                report.verdict().findings().stream().map(Finding::text).toList());
        assertThat(report.verdict().summary()).as("window %d of %s judged", window, pair.purpose())
                .doesNotStartWith("not enough");
        return String.join("; ", report.verdict().findings().stream().filter(f -> f.figure().equals("e2e p50"))
                .map(Finding::text).toList());
    }

    /** Publishes keyless messages at {@link #RATE} a second, each carrying the wall-clock microsecond it was sent at. */
    private static Thread timed(Publisher<String> p, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            long intervalNanos = 1_000_000_000L / RATE;
            long next = System.nanoTime();
            while (!stop.get()) {
                try {
                    p.publish(Message.of(Long.toString(HeldAdapters.nowMicros())));
                } catch (RuntimeException e) {
                    return;
                }
                next += intervalNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }, "timed-load");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
