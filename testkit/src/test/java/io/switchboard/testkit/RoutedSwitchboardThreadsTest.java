package io.switchboard.testkit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Core's own threads end when a Switchboard closes, with every part that has threads in use: lanes,
 * a routed destination with a shadow mirror, the routing ticker, the fleet control plane and its
 * bus, the resilience scheduler and the comparison (on memory brokers; the adapters' threads are
 * checked by each adapter's contract test, group "Closing").
 */
@DisplayName("Closing a routed Switchboard with a fleet control plane")
@Tag("threads")
class RoutedSwitchboardThreadsTest {

    @Test
    @DisplayName("ends every thread it started")
    void endsEveryThread() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        ThreadLeaks before = ThreadLeaks.snapshot();
        try (Switchboard sb = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "threads-a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "threads-b-" + run))
                .route("orders", Route.mirror("a", "b"))
                .route("payments", Route.split(Map.of("a", 50, "b", 50)))
                .property("switchboard.control.fleet", "threads-" + run)
                .property("switchboard.resilience.circuit-breaker.enabled", "true")
                .property("switchboard.resilience.timeout", "5s")
                .meterRegistry(new SimpleMeterRegistry())
                .build()) {
            Recorder<String> orders = new Recorder<>(Duration.ofSeconds(30));
            Recorder<String> payments = new Recorder<>(Duration.ofSeconds(30));
            sb.subscriber("orders", Codec.utf8()).group("g").concurrency(3).subscribe(orders)
                    .ready().toCompletableFuture().join();
            sb.subscriber("payments", Codec.utf8()).group("g").concurrency(2).subscribe(payments)
                    .ready().toCompletableFuture().join();
            Publisher<String> toOrders = sb.publisher("orders", Codec.utf8()).build();
            Publisher<String> toPayments = sb.publisher("payments", Codec.utf8()).build();
            for (int i = 0; i < 20; i++) {
                toOrders.publish(Message.builder("o" + i).key("k" + i).build()).toCompletableFuture().join();
                toPayments.publish(Message.builder("p" + i).key("k" + i).build()).toCompletableFuture().join();
            }
            orders.awaitCount(20);
            payments.awaitCount(20);
            sb.comparison().report("payments");
        }
        before.assertAllEnded(Duration.ofSeconds(30), "after the routed Switchboard closed");
    }
}
