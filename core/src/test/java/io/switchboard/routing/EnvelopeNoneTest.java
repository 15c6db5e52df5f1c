package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.internal.memory.MemoryAdapterFactory;
import io.switchboard.internal.metrics.Meters;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Envelope {@code none} ({@code switchboard.envelope=none}): no envelope header, and routes over it refused. */
class EnvelopeNoneTest {

    @Test
    @DisplayName("writes no envelope header; the subscriber still gets an id per message and the application's headers")
    void noHeaders() {
        String run = UUID.randomUUID().toString();
        List<InboundRecord> wire = new CopyOnWriteArrayList<>();
        Map<String, String> ids = new ConcurrentHashMap<>();
        try (Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", "n-" + run)
                    .property("switchboard.envelope", "none").build();
                BrokerAdapter raw = new MemoryAdapterFactory().create(
                        new BrokerConfig("raw", "memory", Map.of("memory.broker", "n-" + run)));
                RawConsumer consumer = raw.createConsumer(
                        new ConsumerSpec("orders", "wire", false, Delivery.AT_LEAST_ONCE, 64, null, Map.of()))) {
            consumer.start(new RecordListener() {
                @Override
                public void onRecord(InboundRecord record) {
                    wire.add(record);
                    record.ack();
                }

                @Override
                public void onFailure(Throwable error) {
                    throw new AssertionError(error);
                }
            }).toCompletableFuture().join();
            sb.subscriber("orders", Codec.utf8()).group("g").subscribe((m, c) -> ids.put(m.payload(), m.id()))
                    .ready().toCompletableFuture().join();
            Publisher<String> publisher = sb.publisher("orders", Codec.utf8()).build();
            for (int i = 0; i < 10; i++) {
                publisher.publish(Message.builder("m" + i).key("k").header("app", "v").build()).toCompletableFuture().join();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> wire.size() == 10 && ids.size() == 10);
            assertThat(wire).allSatisfy(r -> assertThat(r.headers()).containsOnlyKeys("app"));
            assertThat(ids.values()).doesNotContainNull().doesNotHaveDuplicates();
        }
    }

    @Test
    @DisplayName("a received message's key, position id and broker time are there when read, and the e2e timer counts each")
    void lazyAttributesAndEndToEnd() {
        String run = UUID.randomUUID().toString();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Message<String>> received = new CopyOnWriteArrayList<>();
        long before = System.currentTimeMillis();
        try (Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", "l-" + run)
                .property("switchboard.envelope", "none").meterRegistry(registry).build()) {
            sb.subscriber("orders", Codec.utf8()).group("g").subscribe((m, c) -> received.add(m))
                    .ready().toCompletableFuture().join();
            Publisher<String> publisher = sb.publisher("orders", Codec.utf8()).build();
            for (int i = 0; i < 5; i++) {
                publisher.publish(Message.of("k" + i, "m" + i)).toCompletableFuture().join();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 5);
            long after = System.currentTimeMillis();
            for (Message<String> m : received) { // keys spread over partitions: any order across keys
                assertThat(m.key()).isEqualTo("k" + m.payload().substring(1));
                assertThat(m.id()).isNotBlank().isEqualTo(m.id());
                assertThat(m.timestamp()).isBetween(Instant.ofEpochMilli(before), Instant.ofEpochMilli(after));
            }
            assertThat(received.stream().map(Message::key)).containsExactlyInAnyOrder("k0", "k1", "k2", "k3", "k4");
            assertThat(received.stream().map(Message::id).distinct()).hasSize(5);
            assertThat(registry.get(Meters.CONSUME_LATENCY).timer().count())
                    .as("one end-to-end sample per message, from the broker's time").isEqualTo(5);
        }
    }

    @Test
    @DisplayName("a mirror, a migration or a split over a 'none' instance is refused at build time, naming the setting")
    void spanningRoutesRefused() {
        for (Route route : List.of(Route.mirror("a", "b"), Route.migrate("b", "a"), Route.failover("a", "b"),
                Route.split(Map.of("a", 50, "b", 50)))) {
            String run = UUID.randomUUID().toString();
            assertThatThrownBy(() -> Switchboard.builder()
                    .instance("a", "memory", Map.of("memory.broker", "a-" + run, "switchboard.envelope", "none"))
                    .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                    .route("orders", route).build().close())
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("switchboard.envelope").hasMessageContaining("'a'")
                    .hasMessageContaining("compact");
        }
    }

    @Test
    @DisplayName("a route to the 'none' instance alone is accepted, and so is a runtime change to a spanning route refused")
    void singleAccepted() {
        String run = UUID.randomUUID().toString();
        try (Switchboard sb = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run, "switchboard.envelope", "none"))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .route("orders", Route.single("a")).build()) {
            assertThatThrownBy(() -> sb.routing().update("orders", Route.mirror("b", "a")))
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("switchboard.envelope");
        }
    }
}
