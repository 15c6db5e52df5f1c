package io.switchboard.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the shared contract cannot see on the memory broker: the filtered counter and the delay's edges. */
@DisplayName("Memory broker: filter counter and delay edges")
class MemoryFilterAndDelayTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Switchboard sb = Switchboard.builder()
            .instance("m", "memory", Map.of("memory.broker", "filter-" + UUID.randomUUID()))
            .meterRegistry(registry).build();

    @AfterEach
    void close() {
        sb.close();
    }

    @Test
    @DisplayName("every message the filter drops is counted in switchboard.filtered, none handled")
    void filteredCounted() {
        List<String> got = new CopyOnWriteArrayList<>();
        sb.subscriber("orders", Codec.utf8()).group("billing").filter("paid").subscribe((m, c) -> got.add(m.payload()))
                .ready().toCompletableFuture().join();
        Publisher<String> pub = sb.publisher("orders", Codec.utf8()).build();
        for (int i = 0; i < 10; i++) {
            pub.publish(Message.builder("m" + i).key("k").tag(i % 2 == 0 ? "paid" : "new").build()).toCompletableFuture().join();
        }
        await("5 paid handled").atMost(Duration.ofSeconds(10)).until(() -> got.size() == 5);
        assertThat(got).containsExactly("m0", "m2", "m4", "m6", "m8");
        await("5 counted as filtered").atMost(Duration.ofSeconds(10))
                .until(() -> registry.find("switchboard.filtered").counter() != null
                        && registry.find("switchboard.filtered").counter().count() == 5.0);
    }

    @Test
    @DisplayName("the README's snippet: a delayed order, a tagged order, and a filtered subscription that gets the paid one")
    void readmeSnippet() {
        Switchboard switchboard = sb;
        Codec<String> codec = Codec.utf8();
        Publisher<String> publisher = switchboard.publisher("orders", codec).build();
        String order = "order-1";
        String id = "1";
        List<String> got = new CopyOnWriteArrayList<>();
        io.switchboard.MessageHandler<String> handler = (m, c) -> got.add(m.payload() + "/" + m.tag());
        // tag::readme-delay-filter[]
        publisher.publish(Message.builder(order).key(id).delay(Duration.ofSeconds(3)).build());       // or deliverAt(Instant)
        publisher.publish(Message.builder(order).key(id).tag("paid").build());
        switchboard.subscriber("orders", codec).group("billing").filter("paid || shipped").subscribe(handler);
        // end::readme-delay-filter[]
        await("the paid order").atMost(Duration.ofSeconds(10)).until(() -> got.contains("order-1/paid"));
        assertThat(got).containsExactly("order-1/paid");
    }

    @Test
    @DisplayName("delay and deliverAt exclude each other; a negative delay is refused")
    void delayEdges() {
        assertThatThrownBy(() -> Message.builder("x").delay(Duration.ofSeconds(1)).deliverAt(Instant.now()))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("deliverAt");
        assertThatThrownBy(() -> Message.builder("x").deliverAt(Instant.now()).delay(Duration.ofSeconds(1)))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("delay");
        assertThatThrownBy(() -> Message.builder("x").delay(Duration.ofSeconds(-1)))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("negative");
        Instant at = Instant.now().plusSeconds(5);
        Message<String> m = Message.builder("x").tag("paid").deliverAt(at).build();
        assertThat(m.toBuilder().build().deliverAt()).isEqualTo(at);
        assertThat(m.tag()).isEqualTo("paid");
    }

    @Test
    @DisplayName("a subscription that is closed while delayed messages wait gets them when it comes back")
    void delayedWaitInTheBroker() {
        List<String> first = new CopyOnWriteArrayList<>();
        var s = sb.subscriber("later", Codec.utf8()).group("g").subscribe((m, c) -> first.add(m.payload()));
        s.ready().toCompletableFuture().join();
        sb.publisher("later", Codec.utf8()).build()
                .publish(Message.builder("x").delay(Duration.ofMillis(800)).build()).toCompletableFuture().join();
        s.close();
        List<String> second = new CopyOnWriteArrayList<>();
        sb.subscriber("later", Codec.utf8()).group("g").subscribe((m, c) -> second.add(m.payload()));
        await("the delayed message").atMost(Duration.ofSeconds(10)).until(() -> second.size() == 1);
        assertThat(first).isEmpty();
    }
}
