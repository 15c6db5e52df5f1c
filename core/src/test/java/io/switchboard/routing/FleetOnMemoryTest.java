package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fleet control plane's logic with several replicas (Switchboards) in one JVM, the control
 * channel on the in-memory broker; the same behaviours across JVMs on Kafka, RabbitMQ and RocketMQ
 * run in integration-tests.
 */
@DisplayName("A fleet of replicas on memory brokers")
class FleetOnMemoryTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final List<Switchboard> replicas = new ArrayList<>();

    private Switchboard replica(String id) {
        Switchboard sb = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .route("orders", Route.split(Map.of("a", 80, "b", 20)))
                .property("switchboard.control.fleet", "f" + run)
                .property("switchboard.control.replica", id)
                .property("switchboard.comparison.warm-up", "0s") // the fleet's figures are compared with every replica's sum
                .build();
        replicas.add(sb);
        return sb;
    }

    @AfterEach
    void close() {
        replicas.forEach(Switchboard::close);
    }

    @Test
    @DisplayName("a change made on one replica reaches every replica, and a late replica starts on it, not on its configuration")
    void changeReachesAll() {
        Switchboard r1 = replica("r1");
        Switchboard r2 = replica("r2");
        Switchboard r3 = replica("r3");
        assertThat(r1.routing().fleet().status()).isEqualTo(Fleet.Status.UP);
        r1.routing().update("orders", Route.single("b"));
        assertThat(r1.routing().route("orders")).isEqualTo(Route.single("b"));
        await().atMost(WAIT).until(() -> r2.routing().route("orders").equals(Route.single("b"))
                && r3.routing().route("orders").equals(Route.single("b")));
        r2.routing().updateDefault(Route.single("b"));
        await().atMost(WAIT).until(() -> r3.routing().defaultRoute().equals(Route.single("b")));

        Switchboard late = replica("r4");
        assertThat(late.routing().route("orders")).isEqualTo(Route.single("b"));
        assertThat(late.routing().defaultRoute()).isEqualTo(Route.single("b"));
        assertThat(late.routing().fleet().routeVersion()).isEqualTo(r1.routing().fleet().routeVersion()).isEqualTo(2);
        await().atMost(WAIT).until(() -> r1.routing().fleet().replicas().size() == 4);
        assertThat(r1.routing().fleet().replicas()).allMatch(Fleet.Replica::inStep);
    }

    @Test
    @DisplayName("two replicas writing at once end on one route everywhere")
    void concurrentWrites() throws Exception {
        Switchboard r1 = replica("r1");
        Switchboard r2 = replica("r2");
        Switchboard r3 = replica("r3");
        for (int i = 0; i < 20; i++) {
            int w = i;
            CompletableFuture<Void> a = CompletableFuture.runAsync(() -> r1.routing().update("orders", Route.split(Map.of("a", w, "b", 1))));
            CompletableFuture<Void> b = CompletableFuture.runAsync(() -> r2.routing().update("orders", Route.split(Map.of("a", 1, "b", w))));
            a.get(10, TimeUnit.SECONDS);
            b.get(10, TimeUnit.SECONDS);
        }
        await().atMost(WAIT).until(() -> r1.routing().route("orders").equals(r2.routing().route("orders"))
                && r2.routing().route("orders").equals(r3.routing().route("orders"))
                && r1.routing().fleet().routeVersion() == r3.routing().fleet().routeVersion());
    }

    @Test
    @DisplayName("updateLocal changes one replica only, until the next fleet-wide change")
    void localWrite() {
        Switchboard r1 = replica("r1");
        Switchboard r2 = replica("r2");
        r1.routing().updateLocal("orders", Route.single("b"));
        assertThat(r1.routing().route("orders")).isEqualTo(Route.single("b"));
        assertThat(r2.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 80, "b", 20)));
        r2.routing().update("orders", Route.single("a"));
        await().atMost(WAIT).until(() -> r1.routing().route("orders").equals(Route.single("a")));
    }

    @Test
    @DisplayName("a promotion gate is driven by one replica; when it closes mid-gate another finishes it, once")
    void gateOnce() throws Exception {
        Switchboard r1 = replica("r1");
        Switchboard r2 = replica("r2");
        Switchboard r3 = replica("r3");
        await().atMost(WAIT).until(() -> r1.routing().fleet().leader());
        List<Publisher<String>> pubs = List.of(r1.publisher("orders", Codec.utf8()).build(), r2.publisher("orders", Codec.utf8()).build(),
                r3.publisher("orders", Codec.utf8()).build());
        PromotionGate gate = PromotionGate.from("a").to("b").steps(10, 50, 100).hold(Duration.ofSeconds(1)).minSamples(5)
                .maxP99Ratio(100).p99Slack(Duration.ofSeconds(1)).build();
        Promotion seen = r3.routing().promote("orders", gate);
        await().atMost(WAIT).until(() -> r2.routing().promotion("orders").isPresent());
        Promotion onR2 = r2.routing().promotion("orders").orElseThrow();
        await().atMost(WAIT).until(() -> {
            for (int i = 0; i < 30; i++) {
                for (Publisher<String> p : pubs) {
                    p.publish(Message.of("k" + i, "x"));
                }
            }
            return seen.targetPercent() >= 50 || seen.state() != Promotion.State.RUNNING;
        });
        r1.close(); // the leader goes away mid-gate
        await().atMost(WAIT).until(() -> r2.routing().fleet().leader() || r3.routing().fleet().leader());
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (int i = 0; i < 30; i++) {
                pubs.get(1).publish(Message.of("k" + i, "x"));
                pubs.get(2).publish(Message.of("k" + i, "x"));
            }
            return seen.state() != Promotion.State.RUNNING;
        });
        assertThat(seen.finished().toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo(Promotion.State.COMPLETED);
        assertThat(onR2.finished().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Promotion.State.COMPLETED);
        assertThat(r2.routing().route("orders")).isEqualTo(Route.single("b"));
        assertThat(r3.routing().route("orders")).isEqualTo(Route.single("b"));
    }

    @Test
    @DisplayName("the fleet comparison counts every replica's publishes; the local one this replica's")
    void fleetComparison() {
        Switchboard r1 = replica("r1");
        Switchboard r2 = replica("r2");
        Publisher<String> p1 = r1.publisher("orders", Codec.utf8()).build();
        Publisher<String> p2 = r2.publisher("orders", Codec.utf8()).build();
        for (int i = 0; i < 100; i++) {
            p1.publish(Message.of("k" + i, "x")).toCompletableFuture().join();
        }
        for (int i = 0; i < 30; i++) {
            p2.publish(Message.of("k" + i, "x")).toCompletableFuture().join();
        }

        try {
            await().atMost(WAIT).until(() -> published(r1.comparison().report("orders")) == 130
                    && published(r2.comparison().report("orders")) == 130);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(r1.comparison().report("orders").toTable() + r2.comparison().report("orders").toTable()
                    + r1.comparison().local().report("orders").toTable() + r2.comparison().local().report("orders").toTable()
                    + r1.routing().fleet().replicas() + r2.routing().fleet().replicas(), e);
        }
        assertThat(published(r1.comparison().local().report("orders"))).isEqualTo(100);
        assertThat(published(r2.comparison().local().report("orders"))).isEqualTo(30);
        assertThat(r1.comparison().report("orders").scope()).isEqualTo("fleet of 2 replica(s)");
        assertThat(r1.comparison().local().report("orders").scope()).isEqualTo("replica r1");
        // the client cost's messages: every replica's in the fleet's report (its CPU and bytes travel with them)
        assertThat(costMessages(r1.comparison().report("orders"))).isEqualTo(130);
        assertThat(costMessages(r1.comparison().local().report("orders"))).isEqualTo(100);
    }

    private static long costMessages(ComparisonReport r) {
        return r.instances().stream().mapToLong(i -> i.cost().messages()).sum();
    }

    private static long published(ComparisonReport r) {
        return r.instances().stream().mapToLong(ComparisonReport.InstanceFigures::published).sum();
    }

    @Test
    @DisplayName("without switchboard.control.* routes are local, and a bad control instance is refused with the fix")
    void localAndBadConfig() {
        Switchboard alone = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .build();
        replicas.add(alone);
        assertThat(alone.routing().fleet().status()).isEqualTo(Fleet.Status.LOCAL);
        assertThatThrownBy(() -> Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .property("switchboard.control.instance", "c")
                .build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'switchboard.control.instance' is 'c'").hasMessageContaining("instances: [a, b]");
        assertThatThrownBy(() -> Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .property("switchboard.control.fleet", "orders service")
                .build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'orders service'");
    }
}
