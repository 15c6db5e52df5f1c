package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.internal.memory.MemoryAdapterFactory;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Routing logic on two in-process memory brokers (separate broker names, so two brokers): the
 * quick checks; the same behaviours on Kafka, RabbitMQ and RocketMQ run in integration-tests.
 */
@DisplayName("Routing on two memory brokers")
class RoutingOnMemoryTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Switchboard sb;

    @BeforeEach
    void start() {
        sb = TwoMemoryBrokers.builder()
                .route("orders", Route.split(Map.of("a", 90, "b", 10)))
                .meterRegistry(registry)
                .build();
    }

    @AfterEach
    void stop() {
        sb.close();
    }

    @Test
    @DisplayName("a 90/10 split keeps each key on one instance, within the share, and one subscription gets all")
    void splitSticky() {
        Set<String> received = ConcurrentHashMap.newKeySet();
        Subscription s = sb.subscriber("orders", Codec.utf8()).group("g").concurrency(2)
                .subscribe((m, c) -> received.add(m.id()));
        s.ready().toCompletableFuture().join();
        Publisher<String> p = sb.publisher("orders", Codec.utf8()).build();
        Map<String, Set<String>> instancesPerKey = new HashMap<>();
        int onB = publishKeyed(p, 5000, 500, instancesPerKey);
        assertThat(instancesPerKey.values()).allSatisfy(set -> assertThat(set).hasSize(1));
        assertThat(onB / 5000.0).isBetween(0.05, 0.15);
        await().atMost(Duration.ofSeconds(20)).until(() -> received.size() == 5000);
        assertThat(registry.get("switchboard.routing.decisions").tag("instance", "b").counter().count()).isEqualTo(onB);
    }

    @Test
    @DisplayName("a per-message split spreads every key over both instances by weight, and the report names its design")
    void splitPerMessage() {
        assertThat(sb.comparison().report("orders").design()).isEqualTo(ComparisonReport.Design.SPLIT_BY_KEY);
        sb.routing().update("orders", Route.split(Map.of("a", 50, "b", 50)).perMessage());
        Publisher<String> p = sb.publisher("orders", Codec.utf8()).build();
        Map<String, Set<String>> instancesPerKey = new HashMap<>();
        int onB = publishKeyed(p, 2000, 50, instancesPerKey);
        // 40 messages a key at 50/50: a key all on one instance has probability 2^-39
        assertThat(instancesPerKey.values()).allSatisfy(set -> assertThat(set).containsExactlyInAnyOrder("a", "b"));
        assertThat(onB / 2000.0).isBetween(0.45, 0.55);
        ComparisonReport report = sb.comparison().report("orders");
        assertThat(report.design()).isEqualTo(ComparisonReport.Design.SPLIT_PER_MESSAGE);
        assertThat(report.toTable()).contains("(design) split per message: ");
        assertThat(report.toJson()).contains("\"design\":\"split-per-message\"");
        sb.routing().update("orders", Route.mirror("a", "b"));
        assertThat(sb.comparison().report("orders").design()).isEqualTo(ComparisonReport.Design.MIRROR);
        assertThat(sb.comparison().report().design()).as("every destination: the default route and a mirror differ")
                .isEqualTo(ComparisonReport.Design.MIXED);
    }

    /**
     * {@return how many of {@code messages} messages, published over {@code keys} keys in turn, went to b} Fills the
     * instances each key went to.
     */
    private static int publishKeyed(Publisher<String> p, int messages, int keys, Map<String, Set<String>> instancesPerKey) {
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            sent.add(p.publish(Message.of("k" + (i % keys), "m" + i)).toCompletableFuture());
        }
        int onB = 0;
        for (int i = 0; i < sent.size(); i++) {
            PublishReceipt r = sent.get(i).join();
            instancesPerKey.computeIfAbsent("k" + (i % keys), k -> new java.util.HashSet<>()).add(r.instance());
            onB += r.instance().equals("b") ? 1 : 0;
        }
        return onB;
    }

    @Test
    @DisplayName("perMessage() is a split's option: part of equals, hashCode, toString and the fleet's route text")
    void perMessageIsAnOption() {
        Route sticky = Route.split(Map.of("a", 50, "b", 50));
        Route perMessage = sticky.perMessage();
        assertThat(sticky.isPerMessage()).isFalse();
        assertThat(perMessage.isPerMessage()).isTrue();
        assertThat(perMessage).isNotEqualTo(sticky).isEqualTo(Route.split(Map.of("a", 50, "b", 50)).perMessage())
                .hasSameHashCodeAs(Route.split(Map.of("a", 50, "b", 50)).perMessage());
        assertThat(perMessage.hashCode()).isNotEqualTo(sticky.hashCode());
        assertThat(perMessage.toString()).startsWith("split{").endsWith("} per message");
        assertThat(io.switchboard.internal.fleet.RouteText.parse(io.switchboard.internal.fleet.RouteText.format(perMessage)))
                .isEqualTo(perMessage);
        assertThat(io.switchboard.internal.fleet.RouteText.parse(io.switchboard.internal.fleet.RouteText.format(sticky)))
                .isEqualTo(sticky);
        assertThatThrownBy(() -> Route.mirror("a", "b").perMessage()).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("mirror").hasMessageContaining("Route.split(weights).perMessage()");
    }

    @Test
    @DisplayName("refuses a route naming an unknown instance, weights without a positive total, and one instance twice")
    void badRoutes() {
        assertThatThrownBy(() -> sb.routing().update("orders", Route.single("c")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'c'").hasMessageContaining("instances: [a, b]").hasMessageContaining("instance(\"c\"");
        assertThatThrownBy(() -> Route.split(Map.of("a", 0, "b", 0)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("sum to 0").hasMessageContaining("positive total");
        assertThatThrownBy(() -> Route.split(Map.of("a", -5, "b", 10)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("-5");
        assertThatThrownBy(() -> Route.mirror("a", "a"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("two different instances")
                .hasMessageContaining("Route.single(\"a\")");
        assertThatThrownBy(() -> Switchboard.builder().broker("memory").route("x", Route.single("memory")).build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("instance(name, broker, properties)");
        assertThatThrownBy(() -> Switchboard.builder().instance("a", "memory", Map.of()).instance("a", "memory", Map.of()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("defined twice");
        assertThat(sb.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 90, "b", 10)));
    }

    @Test
    @DisplayName("migrate: publishes move, the subscription reads both, each id handled once, drained() completes")
    void migrate() {
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        sb.routing().update("orders", Route.single("a"));
        Subscription s = sb.subscriber("orders", Codec.utf8()).group("g").subscribe((m, c) -> handled.merge(m.id(), 1, Integer::sum));
        s.ready().toCompletableFuture().join();
        Publisher<String> p = sb.publisher("orders", Codec.utf8()).build();
        for (int i = 0; i < 100; i++) {
            p.publish(Message.of("k" + i, "before")).toCompletableFuture().join();
        }
        sb.routing().update("orders", Route.migrate("a", "b"));
        for (int i = 0; i < 100; i++) {
            assertThat(p.publish(Message.of("k" + i, "after")).toCompletableFuture().join().instance()).isEqualTo("b");
        }
        sb.routing().drained("orders").toCompletableFuture().orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 200);
        assertThat(handled.values()).containsOnly(1);
    }

    @Test
    @DisplayName("compact envelope: an instance's property reaches its routed publishers; failover dedups ids across both forms")
    void compactEnvelopeAcrossInstances() {
        String run = UUID.randomUUID().toString();
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        List<InboundRecord> wireOfA = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Switchboard routed = Switchboard.builder()
                    .instance("a", "memory", Map.of("memory.broker", "ca-" + run, "switchboard.envelope", "compact"))
                    .instance("b", "memory", Map.of("memory.broker", "cb-" + run))
                    .route("orders", Route.failover("a", "b")).build();
                Switchboard plainB = Switchboard.builder().broker("memory").property("memory.broker", "cb-" + run).build();
                BrokerAdapter rawA = new MemoryAdapterFactory().create(
                        new BrokerConfig("raw", "memory", Map.of("memory.broker", "ca-" + run)));
                RawConsumer wire = rawA.createConsumer(
                        new ConsumerSpec("orders", "wire", false, Delivery.AT_LEAST_ONCE, 64, null, Map.of()))) {
            routed.subscriber("orders", Codec.utf8()).group("g").subscribe((m, c) -> handled.merge(m.id(), 1, Integer::sum))
                    .ready().toCompletableFuture().join();
            wire.start(new RecordListener() {
                @Override
                public void onRecord(InboundRecord record) {
                    wireOfA.add(record);
                    record.ack();
                }

                @Override
                public void onFailure(Throwable error) {
                    throw new AssertionError(error);
                }
            }).toCompletableFuture().join();
            Publisher<String> viaRoute = routed.publisher("orders", Codec.utf8()).build();
            Publisher<String> onB = plainB.publisher("orders", Codec.utf8()).build();
            for (int i = 0; i < 20; i++) {
                Message<String> m = Message.builder("m" + i).key("k").id("id;" + i).build();
                assertThat(viaRoute.publish(m).toCompletableFuture().join().instance()).isEqualTo("a");
                onB.publish(m).toCompletableFuture().join(); // the same id in the CloudEvents form, as a failover resend
            }
            onB.publish(Message.builder("marker").key("k").id("marker").build()).toCompletableFuture().join();

            await().atMost(Duration.ofSeconds(10)).until(() -> handled.containsKey("marker") && wireOfA.size() == 20);
            assertThat(handled).hasSize(21);
            assertThat(handled.values()).containsOnly(1);
            assertThat(wireOfA).allSatisfy(r -> assertThat(r.headers()).containsKey(Envelope.COMPACT)
                    .doesNotContainKeys(Envelope.ID, Envelope.TIME, Envelope.SOURCE));
        }
    }
}
