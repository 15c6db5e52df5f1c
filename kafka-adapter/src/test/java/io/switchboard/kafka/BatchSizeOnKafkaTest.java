package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.Route;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The batch sizes behind the client cost on the in-process Kafka (issue 87): two Kafka instances of one Switchboard,
 * split 50/50, {@code a} with {@code linger.ms=20} and {@code b} with 0, at 1,000 msg/s. The report gives a's records per
 * request well above b's, and a client-CPU finding between them says that they were measured at different batch sizes.
 */
@DisplayName("Records per request on Kafka at linger.ms 20 and 0")
@Timeout(90)
class BatchSizeOnKafkaTest {

    private static final int RATE = 1_000;
    private static final Duration LOAD = Duration.ofSeconds(25);

    @Test
    @DisplayName("a (linger.ms=20) sends far more records a request than b (linger.ms=0); a cost finding between them says so")
    void lingerMakesBiggerBatches() throws Exception {
        String orders = KafkaTestSupport.topic("batches");
        String bootstrap = KafkaTestSupport.bootstrap();
        try (Switchboard sb = Switchboard.builder()
                .instance("a", "kafka", Map.of("kafka.bootstrap.servers", bootstrap, "kafka.linger.ms", "20"))
                .instance("b", "kafka", Map.of("kafka.bootstrap.servers", bootstrap, "kafka.linger.ms", "0"))
                .route(orders, Route.split(Map.of("a", 50, "b", 50)))
                .build()) {
            AtomicLong consumed = new AtomicLong();
            sb.subscriber(orders, Codec.utf8()).group("g").subscribe((m, c) -> consumed.incrementAndGet()).ready()
                    .toCompletableFuture().get(60, TimeUnit.SECONDS);
            AtomicBoolean stop = new AtomicBoolean();
            Thread load = load(sb.publisher(orders, Codec.utf8()).build(), stop);
            try {
                Thread.sleep(LOAD.toMillis());
            } finally {
                stop.set(true);
                load.join(10_000);
            }
            Thread.sleep(1_500); // the last second closed
            ComparisonReport report = sb.comparison().report(orders, Duration.ofSeconds(20));
            System.out.print(report.toTable());
            System.out.println(report.toJson());
            double a = report.instances().get(0).cost().recordsPerRequest();
            double b = report.instances().get(1).cost().recordsPerRequest();
            System.out.printf("records per request: a (linger.ms=20) %.2f, b (linger.ms=0) %.2f; %d consumed%n", a, b,
                    consumed.get());
            assertThat(report.instances().get(0).published()).as("a carried traffic").isGreaterThan(5_000);
            assertThat(a).as("a's records per request").isGreaterThan(3);
            assertThat(b).as("b's records per request").isGreaterThanOrEqualTo(1);
            assertThat(a).as("a's records per request against b's %.2f", b).isGreaterThan(2 * b);
            assertThat(report.toTable()).contains("| records per request |");
            assertThat(report.toJson()).contains("\"recordsPerRequest\"");
            report.verdict().findings().stream().filter(f -> f.figure().equals("client CPU per message"))
                    .forEach(f -> assertThat(f.notes()).as(f.text()).anySatisfy(n -> assertThat(n)
                            .startsWith("measured at different batch sizes: a sent ")
                            .contains("kafka linger.ms=20").contains("kafka linger.ms=0")
                            .contains("set a's linger.ms=0 (as b's; property kafka.linger.ms)")));
        }
    }

    /** Publishes {@value #RATE} keyed messages a second until {@code stop}. */
    private static Thread load(Publisher<String> p, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            long i = 0;
            long interval = 1_000_000_000L / RATE;
            long next = System.nanoTime();
            while (!stop.get()) {
                String key = "k" + (i % 100);
                try {
                    p.publish(Message.of(key, key + ":" + i++));
                } catch (RuntimeException e) {
                    return;
                }
                next += interval;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
            }
        }, "load");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
