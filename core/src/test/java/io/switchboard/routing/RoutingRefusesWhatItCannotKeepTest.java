package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.UnsupportedCapabilityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A route change towards an instance that lacks what a live publisher or subscription of the destination uses is
 * refused before any message goes there, naming the capability and the instance; the route stays as it was.
 * Instance {@code p} is the memory broker without delayed delivery and filtering ({@link PlainMemoryAdapterFactory}).
 */
@DisplayName("Routing refuses what it cannot keep")
class RoutingRefusesWhatItCannotKeepTest {

    private final String run = UUID.randomUUID().toString();
    private final Switchboard sb = Switchboard.builder()
            .instance("m", "memory", Map.of("memory.broker", "m-" + run))
            .instance("m2", "memory", Map.of("memory.broker", "m2-" + run))
            .instance("p", "plain-memory", Map.of("memory.broker", "p-" + run))
            .defaultRoute(Route.single("m"))
            .build();

    @AfterEach
    void close() {
        sb.close();
    }

    @Test
    @DisplayName("a filtered subscription: split, single, failover and the default route towards p are refused")
    void filterKeepsItsRoute() {
        List<String> got = new CopyOnWriteArrayList<>();
        sb.subscriber("orders", Codec.utf8()).group("billing").filter("paid").subscribe((m, c) -> got.add(m.payload()))
                .ready().toCompletableFuture().join();
        for (Route towardsP : List.of(Route.split(Map.of("m", 50, "p", 50)), Route.single("p"), Route.failover("m", "p"))) {
            assertThatThrownBy(() -> sb.routing().update("orders", towardsP))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("'p'").hasMessageContaining("filtering").hasMessageContaining("orders");
            assertThat(sb.routing().route("orders")).isEqualTo(Route.single("m"));
        }
        assertThatThrownBy(() -> sb.routing().updateDefault(Route.single("p")))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'");
        assertThat(sb.routing().defaultRoute()).isEqualTo(Route.single("m"));
        Publisher<String> pub = sb.publisher("orders", Codec.utf8()).build();
        pub.publish(Message.builder("a").tag("paid").build()).toCompletableFuture().join();
        await("the filtered subscription still works").atMost(Duration.ofSeconds(10)).until(() -> got.contains("a"));
        sb.routing().update("orders", Route.split(Map.of("m", 50, "m2", 50))); // both filter: allowed
        assertThat(sb.routing().route("orders")).isEqualTo(Route.split(Map.of("m", 50, "m2", 50)));
    }

    @Test
    @DisplayName("a subscription asking for per-key order refuses a per-message split, and is refused under one")
    void perKeyOrderKeepsItsSplit() {
        Route perMessage = Route.split(Map.of("m", 50, "m2", 50)).perMessage();
        sb.subscriber("orders", Codec.utf8()).group("billing").property("rocketmq.consume-mode", "orderly")
                .subscribe((m, c) -> { }).ready().toCompletableFuture().join();
        assertThatThrownBy(() -> sb.routing().update("orders", perMessage))
                .isInstanceOf(io.switchboard.ConfigurationException.class)
                .hasMessageContaining("rocketmq.consume-mode=orderly").hasMessageContaining("'billing'")
                .hasMessageContaining("orders").hasMessageContaining("without perMessage()")
                .hasMessageContaining("rocketmq.consume-mode=concurrently");
        assertThat(sb.routing().route("orders")).isEqualTo(Route.single("m"));
        sb.routing().update("orders", Route.split(Map.of("m", 50, "m2", 50))); // by key: allowed
        sb.routing().update("other", perMessage);
        assertThatThrownBy(() -> sb.subscriber("other", Codec.utf8()).group("billing")
                .property("rocketmq.consume-mode", "orderly").subscribe((m, c) -> { }))
                .isInstanceOf(io.switchboard.ConfigurationException.class).hasMessageContaining("per-key order");
        sb.subscriber("other", Codec.utf8()).group("audit").property("rocketmq.consume-mode", "concurrently")
                .subscribe((m, c) -> { }).ready().toCompletableFuture().join(); // no order asked: allowed
    }

    @Test
    @DisplayName("on an instance without them, a delay, a filter and a broker-side retry are refused, naming the instance")
    void refusedWhereMissing() {
        sb.routing().update("plain", Route.single("p"));
        Publisher<String> pub = sb.publisher("plain", Codec.utf8()).build();
        assertThatThrownBy(() -> pub.publish(Message.builder("x").delay(Duration.ofSeconds(1)).build()))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'").hasMessageContaining("delayed");
        assertThatThrownBy(() -> sb.subscriber("plain", Codec.utf8()).filter("paid").subscribe((m, c) -> { }))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'").hasMessageContaining("filter");
        assertThatThrownBy(() -> sb.subscriber("plain", Codec.utf8())
                .retry(io.switchboard.RetryPolicy.fixed(3, Duration.ofSeconds(5)).viaBroker(Duration.ofSeconds(5)))
                .subscribe((m, c) -> { }))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'").hasMessageContaining("viaBroker");
    }

    @Test
    @DisplayName("a start position goes to each instance of the route; one without it refuses, and a route towards it too")
    void startPositionPerInstance() {
        Publisher<String> pub = sb.publisher("replayed", Codec.utf8()).build();
        for (String old : List.of("a", "b", "c")) {
            pub.publish(Message.builder(old).key("k").build()).toCompletableFuture().join();
        }
        List<String> got = new CopyOnWriteArrayList<>();
        sb.subscriber("replayed", Codec.utf8()).group("g").startFrom(io.switchboard.StartPosition.offset(1))
                .subscribe((m, c) -> got.add(m.payload())).ready().toCompletableFuture().join();
        await("from offset 1 on m").atMost(Duration.ofSeconds(10)).until(() -> got.size() >= 2);
        assertThat(got).containsExactly("b", "c");
        assertThatThrownBy(() -> sb.routing().update("replayed", Route.split(Map.of("m", 50, "p", 50))))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'")
                .hasMessageContaining("offset:1").hasMessageContaining("replayed");
        assertThat(sb.routing().route("replayed")).isEqualTo(Route.single("m"));
        sb.routing().update("plain", Route.split(Map.of("m", 50, "p", 50)));
        assertThatThrownBy(() -> sb.subscriber("plain", Codec.utf8()).group("g")
                .startFrom(io.switchboard.StartPosition.parse("time:2024-05-01T00:00:00Z")).subscribe((m, c) -> { }))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'")
                .hasMessageContaining("time:2024-05-01T00:00:00Z").hasMessageContaining("'plain'");
    }

    @Test
    @DisplayName("a publisher that published a delayed message: a route or promotion gate towards p is refused")
    void delayKeepsItsRoute() {
        Publisher<String> pub = sb.publisher("reminders", Codec.utf8()).build();
        sb.routing().update("reminders", Route.split(Map.of("m", 50, "p", 50))); // nothing delayed yet: allowed
        sb.routing().update("reminders", Route.single("m"));
        pub.publish(Message.builder("later").delay(Duration.ofSeconds(3)).build()).toCompletableFuture().join();
        assertThatThrownBy(() -> sb.routing().update("reminders", Route.migrate("m", "p")))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("'p'").hasMessageContaining("delayed delivery").hasMessageContaining("reminders");
        assertThatThrownBy(() -> sb.routing().promote("reminders", PromotionGate.from("m").to("p").build()))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("'p'");
        assertThat(sb.routing().route("reminders")).isEqualTo(Route.single("m"));
        pub.close();
        sb.routing().update("reminders", Route.single("p")); // the publisher that needed it is gone: allowed
    }
}
