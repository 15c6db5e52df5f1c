package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.internal.comparison.ComparisonEngine;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.internal.comparison.TrafficStats;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.PerformanceSetting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The verdict names the client setting behind a latency finding (issue 36): the demo's Kafka instance {@code a} with
 * kafka-clients' default {@code linger.ms} against a RabbitMQ {@code b} that sends at once. The settings are the Kafka
 * adapter's own report of its configuration; the latencies are fed into the comparison directly (a: about 3 ms more
 * than b, as the demo measured), so the statistics judge the same difference every run.
 */
@DisplayName("The verdict names the settings behind a difference")
class VerdictNamesSettingsTest {

    private static final List<PerformanceSetting> RABBIT = List.of(
            PerformanceSetting.confirmWait("publisher confirms", "on", true, "delivery"),
            PerformanceSetting.other("x-queue-type", "classic", "rabbitmq.queue-type"));

    @Test
    @DisplayName("demo defaults: the publish-latency finding names linger.ms=5 and the like-for-like value")
    void demoDefaultsNameLinger() {
        ComparisonReport report = compare(Map.of());
        System.out.print(report.toTable());
        ComparisonReport.Finding publish = finding(report, "publish p50");
        assertThat(publish.behind()).isEqualTo("a");
        assertThat(publish.explanations()).singleElement().asString()
                .contains("a waits up to 5 ms to fill a batch (kafka linger.ms=5)")
                .contains("b sends at once")
                .contains("set a's linger.ms=0")
                .contains("kafka.linger.ms");
        assertThat(finding(report, "e2e p50").explanations()).singleElement().asString().contains("linger.ms=5");
        assertThat(report.verdict().settings()).anySatisfy(line -> assertThat(line).startsWith("a (kafka): linger.ms=5, "))
                .anySatisfy(line -> assertThat(line).startsWith("b (rabbitmq): publisher confirms=on"));
        assertThat(report.toTable()).contains("because a waits up to 5 ms").contains("(settings) a (kafka): linger.ms=5");
        assertThat(report.toJson()).contains("\"explanations\":[\"a waits up to 5 ms");
    }

    @Test
    @DisplayName("with kafka.linger.ms: 0 on a, the same difference is no longer put down to batching")
    void lingerZeroRemovesTheExplanation() {
        ComparisonReport report = compare(Map.of("kafka.linger.ms", "0"));
        System.out.print(report.toTable());
        assertThat(finding(report, "publish p50").explanations()).isEmpty();
        assertThat(finding(report, "e2e p50").explanations()).isEmpty();
        assertThat(report.verdict().settings()).anySatisfy(line -> assertThat(line).startsWith("a (kafka): linger.ms=0, "));
    }

    @Test
    @DisplayName("a longer linger on a narrows what the setting can account for to the measured gap")
    void lingerLongerThanTheGap() {
        ComparisonReport report = compare(Map.of("kafka.producer.linger.ms", "20"));
        assertThat(finding(report, "publish p50").explanations()).singleElement().asString()
                .contains("a waits up to 20 ms").contains("accounts for at most 3");
    }

    private static ComparisonReport compare(Map<String, String> kafkaProperties) {
        Map<String, String> props = new HashMap<>(kafkaProperties);
        props.put("kafka.bootstrap.servers", "127.0.0.1:9");
        List<PerformanceSetting> kafka;
        try (KafkaAdapter adapter = new KafkaAdapter(new BrokerConfig("a", "kafka", props))) {
            kafka = adapter.performanceSettings();
        }
        AtomicLong millis = new AtomicLong(1_000_000_000_000L);
        Clock clock = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(millis.get());
            }
        };
        TrafficBook book = new TrafficBook(60, clock);
        ComparisonEngine engine = new ComparisonEngine(book, List.of("a", "b"), Map.of("a", "kafka", "b", "rabbitmq"),
                Map.of("a", kafka, "b", RABBIT), Map.of(), 100, 0.10);
        for (int s = 0; s < 5; s++) { // five seconds: the verdict reads how each second's samples spread
            record(book.stats("a", "kafka", "orders"), 5_500);
            record(book.stats("b", "rabbitmq", "orders"), 2_500);
            book.roll(millis.get() / 1000);
            millis.addAndGet(1_000);
        }
        millis.addAndGet(1_000);
        return engine.report("orders", Duration.ofSeconds(60));
    }

    /** 400 publishes and deliveries between {@code fromMicros} and that + 1 ms, evenly. */
    private static void record(TrafficStats stats, long fromMicros) {
        for (int k = 0; k < 400; k++) {
            long micros = fromMicros + k * 1_000 / 400;
            stats.published(System.nanoTime() - micros * 1_000, 100, true);
            stats.endToEnd(Instant.now().minusNanos(micros * 1_000));
        }
    }

    private static ComparisonReport.Finding finding(ComparisonReport report, String figure) {
        return report.verdict().findings().stream().filter(f -> f.figure().equals(figure)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding on " + figure + " in " + report.toTable()));
    }
}
