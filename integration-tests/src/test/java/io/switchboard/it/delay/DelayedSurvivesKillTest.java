package io.switchboard.it.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.testkit.fault.ChildJvms;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Delayed messages wait in the broker, not in the application: the application that published them (and, on Kafka,
 * ran their forwarder) is killed with {@code kill -9} while they wait, and a new application receives every one,
 * none early.
 */
@Tag("fault")
@DisplayName("Delayed messages survive kill -9 of the application")
class DelayedSurvivesKillTest {

    private static final RabbitMqServer RABBIT = RabbitMqServer.local();
    private static final int COUNT = 10;
    private static final long DELAY_MS = 6000;
    private final String destination = "kill_" + UUID.randomUUID().toString().substring(0, 8);
    private ChildJvms child;

    @TempDir
    Path directory;

    @AfterEach
    void cleanUp() throws Exception {
        if (child != null) {
            child.killAll();
        }
        RABBIT.deleteNamesStartingWith(List.of(destination));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka", "rabbitmq", "rocketmq"})
    void everyOneArrivesNoneEarly(String broker) throws Exception {
        Map<String, String> props = switch (broker) {
            // a killed member's partitions move after its session times out: the broker's minimum, 6 s
            case "kafka" -> Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers(),
                    "kafka.session.timeout.ms", "6000");
            case "rabbitmq" -> {
                RABBIT.require();
                yield Map.of("rabbitmq.uri", RABBIT.uriWithCredentials());
            }
            default -> Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress());
        };
        List<String> args = new ArrayList<>(List.of(broker, destination, String.valueOf(COUNT), String.valueOf(DELAY_MS)));
        props.forEach((k, v) -> args.add(k + "=" + v));
        child = new ChildJvms("delayed publisher", directory, DelayedPublisherMain.class, List.of("-Xmx256m"));
        child.define(1, args);
        child.launch(1);
        await("the child's '@@ published' in " + child.logOf(1)).atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Files.exists(child.logOf(1)) && Files.readString(child.logOf(1)).contains("@@ published"));
        child.kill(1); // kill -9, while every message still waits
        Map<String, Long> arrived = new ConcurrentHashMap<>();
        try (Switchboard sb = Switchboard.builder().broker(broker).properties(props).build()) {
            sb.subscriber(destination, Codec.utf8()).group("g")
                    .subscribe((m, c) -> arrived.putIfAbsent(m.payload(), System.currentTimeMillis()));
            await("all " + COUNT + " delayed messages after the kill").atMost(Duration.ofSeconds(120))
                    .until(() -> arrived.size() >= COUNT);
        }
        long early = arrived.entrySet().stream()
                .filter(e -> e.getValue() < Long.parseLong(e.getKey().split(":")[1]) - 5).count();
        long lateMax = arrived.entrySet().stream()
                .mapToLong(e -> e.getValue() - Long.parseLong(e.getKey().split(":")[1])).max().orElse(0);
        System.out.printf("capability=delay broker=%s case=kill-9 sent=%d received=%d early=%d late_max_ms=%d lost=%d%n",
                broker, COUNT, arrived.size(), early, lateMax, COUNT - arrived.size());
        assertThat(arrived).hasSize(COUNT);
        assertThat(early).as("messages handled before they were due").isZero();
    }
}
