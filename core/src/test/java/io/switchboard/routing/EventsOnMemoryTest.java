package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.EventKinds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Core's own events, made to happen on memory brokers and seen on the comparison's timeline (report, table, JSON) and
 * as {@code switchboard.events} counters: a route change, a replica joining and leaving the fleet, publisher
 * back-pressure, publish retries, a circuit breaker opening, a GC pause over the threshold.
 */
@DisplayName("Core's events reach the comparison's timeline")
@Timeout(120)
class EventsOnMemoryTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final List<Switchboard> made = new ArrayList<>();

    @AfterEach
    void close() {
        made.forEach(Switchboard::close);
    }

    private Switchboard.Builder builder(Map<String, String> aProperties) {
        Map<String, String> a = new java.util.HashMap<>(aProperties);
        a.put("memory.broker", "a-" + run);
        return Switchboard.builder()
                .instance("a", "memory", a)
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .property("switchboard.events.gc-pause-threshold", "1ms")
                .route("orders", Route.split(Map.of("a", 50, "b", 50)));
    }

    private static boolean has(Switchboard sb, String instance, String kind) {
        return sb.comparison().report("orders").events().stream().anyMatch(e -> e.instance().equals(instance) && e.kind().equals(kind));
    }

    @Test
    @DisplayName("a route change, a GC pause and the counters")
    void routeChangeAndGcPause() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Switchboard sb = builder(Map.of()).meterRegistry(registry).build();
        made.add(sb);
        sb.routing().update("orders", Route.single("b"));
        System.gc(); // a full collection: longer than 1 ms
        await("route-changed and gc-pause on both instances").atMost(WAIT).until(() -> has(sb, "a", EventKinds.ROUTE_CHANGED)
                && has(sb, "b", EventKinds.ROUTE_CHANGED) && has(sb, "a", EventKinds.GC_PAUSE));
        ComparisonReport report = sb.comparison().report("orders");
        System.out.print(report.toTable());
        assertThat(report.events()).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKinds.ROUTE_CHANGED);
            assertThat(e.subject()).isEqualTo("orders");
            assertThat(e.detail()).contains("single(b)");
        });
        assertThat(report.events()).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKinds.GC_PAUSE);
            assertThat(e.span()).isTrue();
            assertThat(e.detail()).contains("System.gc()");
        });
        assertThat(report.toTable()).contains("(event) ").contains(": route-changed orders");
        assertThat(report.toJson()).contains("\"kind\":\"route-changed\"");
        assertThat(registry.get("switchboard.events").tags("kind", EventKinds.ROUTE_CHANGED, "instance", "a", "broker", "memory")
                .functionCounter().count()).isGreaterThanOrEqualTo(1);
        assertThat(registry.get("switchboard.events").tags("kind", EventKinds.GC_PAUSE, "instance", "b").functionCounter().count())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    @DisplayName("back-pressure from a full destination, the retries it causes, and the circuit breaker it opens")
    void backPressureRetryAndBreaker() {
        Switchboard sb = builder(Map.of("memory.capacity", "1", "memory.publish-timeout", "5ms",
                "switchboard.resilience.retry.max-attempts", "2", "switchboard.resilience.retry.initial-backoff", "5ms",
                "switchboard.resilience.circuit-breaker.enabled", "true",
                "switchboard.resilience.circuit-breaker.sliding-window-size", "4",
                "switchboard.resilience.circuit-breaker.minimum-number-of-calls", "4")).route("orders", Route.single("a")).build();
        made.add(sb);
        Publisher<byte[]> p = sb.publisher("orders", Codec.bytes()).build();
        for (int i = 0; i < 10; i++) { // nobody consumes: the first fills a, the others wait 5 ms and are refused
            p.publish(new byte[] {(byte) i}).toCompletableFuture().handle((r, e) -> null).join();
        }
        await("back-pressure, publish-retry and circuit-breaker on a").atMost(WAIT).until(() -> has(sb, "a",
                EventKinds.BACK_PRESSURE) && has(sb, "a", EventKinds.PUBLISH_RETRY) && has(sb, "a", EventKinds.CIRCUIT_BREAKER));
        ComparisonReport report = sb.comparison().report("orders");
        System.out.print(report.toTable());
        assertThat(report.events()).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKinds.CIRCUIT_BREAKER);
            assertThat(e.detail()).contains("CLOSED -> OPEN");
        });
        assertThat(report.events()).filteredOn(e -> e.kind().equals(EventKinds.BACK_PRESSURE))
                .allSatisfy(e -> assertThat(e.subject()).isEqualTo("orders"));
        assertThat(report.events()).noneMatch(e -> e.instance().equals("b") && !e.kind().equals(EventKinds.GC_PAUSE));
    }

    @Test
    @DisplayName("a replica joining and leaving the fleet")
    void replicaJoinsAndLeaves() {
        Switchboard r1 = builder(Map.of()).property("switchboard.control.fleet", "f" + run)
                .property("switchboard.control.replica", "r1").build();
        made.add(r1);
        Switchboard r2 = builder(Map.of()).property("switchboard.control.fleet", "f" + run)
                .property("switchboard.control.replica", "r2").build();
        await("r1 hears r2 join").atMost(WAIT).until(() -> r1.comparison().local().report("orders").events().stream()
                .anyMatch(e -> e.kind().equals(EventKinds.REPLICA_JOINED) && e.subject().equals("r2")));
        r2.close();
        await("r1 hears r2 leave").atMost(WAIT).until(() -> r1.comparison().local().report("orders").events().stream()
                .anyMatch(e -> e.kind().equals(EventKinds.REPLICA_LEFT) && e.subject().equals("r2")));
        System.out.print(r1.comparison().report("orders").toTable());
    }
}
