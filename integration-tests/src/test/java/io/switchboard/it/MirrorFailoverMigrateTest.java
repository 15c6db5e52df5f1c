package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.routing.ShadowReport;
import io.switchboard.testkit.fault.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Mirror, failover and migrate across real brokers")
class MirrorFailoverMigrateTest extends RoutingTestSupport {

    @Test
    @DisplayName("mirror Kafka -> RabbitMQ with the shadow cut: the primary's results are whole; the shadow check reports what the shadow missed")
    void mirrorShadowCut() throws Exception {
        String orders = destination("mirror");
        TcpProxy proxy = rabbitProxy();
        Switchboard sb = closeAfter(builder().instance("kafka", "kafka", kafka())
                .instance("rabbit", "rabbitmq", props(rabbitVia(proxy), Map.of("rabbitmq.connection-name", orders)))
                .property("switchboard.routing.shadow-grace", "2s")
                .route(orders, Route.mirror("kafka", "rabbit")).build());
        Set<String> handled = ConcurrentHashMap.newKeySet();
        AtomicInteger handlerCalls = new AtomicInteger();
        Subscription s = sb.subscriber(orders, TEXT).group("billing").subscribe((m, c) -> {
            handlerCalls.incrementAndGet();
            handled.add(m.payload());
        });
        s.ready().toCompletableFuture().get();
        Publisher<String> p = sb.publisher(orders, TEXT).build();

        List<PublishReceipt> first = publishKeyed(p, 0, 1000, 50);
        await().atMost(TIMEOUT).until(() -> sb.routing().shadowReport(orders).shadowSeen() == 1000);
        ShadowReport healthy = sb.routing().shadowReport(orders);
        System.out.println(healthy.summary());
        assertThat(healthy.clean()).isTrue();

        proxy.cut();
        List<PublishReceipt> second = publishKeyed(p, 1000, 1000, 50);
        assertThat(first).hasSize(1000).allSatisfy(r -> assertThat(r.instance()).isEqualTo("kafka"));
        assertThat(second).hasSize(1000).allSatisfy(r -> assertThat(r.instance()).isEqualTo("kafka"));
        await().atMost(TIMEOUT).until(() -> handled.size() == 2000);
        await().atMost(TIMEOUT).until(() -> sb.routing().shadowReport(orders).missing() >= 1000);
        ShadowReport cut = sb.routing().shadowReport(orders);
        System.out.println(cut.summary());
        System.out.println(sb.comparison().report(orders).toTable());
        assertThat(cut.clean()).isFalse();
        assertThat(cut.primarySeen()).isEqualTo(2000);
        assertThat(cut.missing()).isEqualTo(1000);
        assertThat(cut.duplicated()).isZero();
        assertThat(handlerCalls.get()).as("observe-only shadow: the handler ran for primary messages only").isEqualTo(2000);
        proxy.restore();
    }

    @Test
    @DisplayName("failover RabbitMQ -> Kafka: the primary cut mid-stream moves traffic to the secondary, nothing lost, and it returns")
    void failover() throws Exception {
        String orders = destination("failover");
        TcpProxy proxy = rabbitProxy();
        Map<String, String> breaker = Map.of("switchboard.resilience.circuit-breaker.enabled", "true",
                "switchboard.resilience.circuit-breaker.sliding-window-size", "10",
                "switchboard.resilience.circuit-breaker.minimum-number-of-calls", "5",
                "switchboard.resilience.circuit-breaker.wait-duration-in-open-state", "2s",
                "switchboard.resilience.timeout", "1s");
        Switchboard sb = closeAfter(builder()
                .instance("rabbit", "rabbitmq", props(rabbitVia(proxy), breaker, Map.of("rabbitmq.connection-name", orders)))
                .instance("kafka", "kafka", kafka())
                .route(orders, Route.failover("rabbit", "kafka")).build());
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        Subscription s = sb.subscriber(orders, TEXT).group("billing").subscribe((m, c) -> handled.merge(m.payload(), 1, Integer::sum));
        s.ready().toCompletableFuture().get();
        Publisher<String> p = sb.publisher(orders, TEXT).build();

        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        int total = 0;
        for (int phase = 0; phase < 3; phase++) {
            if (phase == 1) {
                proxy.cut();
            } else if (phase == 2) {
                proxy.restore();
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(phase == 1 ? 6 : 4);
            while (System.nanoTime() < until || phase == 2 && counterAfterRestore(orders) == 0) {
                String key = "k" + (total % 20);
                sent.add(p.publish(Message.of(key, key + ":" + total)).toCompletableFuture());
                total++;
                Thread.sleep(5);
                if (phase == 2 && System.nanoTime() > until + TimeUnit.SECONDS.toNanos(30)) {
                    break;
                }
            }
            if (phase == 0) {
                mark = counter("switchboard.routing.decisions", "destination", orders, "instance", "rabbit");
            }
            if (phase == 1) {
                afterCut = counter("switchboard.routing.decisions", "destination", orders, "instance", "kafka");
                markRestore = counter("switchboard.routing.decisions", "destination", orders, "instance", "rabbit");
            }
        }
        int failed = 0;
        for (CompletableFuture<PublishReceipt> f : sent) {
            try {
                f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                failed++;
            }
        }
        int published = total;
        await().atMost(TIMEOUT).until(() -> handled.size() == published);
        double toKafka = counter("switchboard.routing.decisions", "destination", orders, "instance", "kafka");
        double fallbacks = counter("switchboard.routing.fallbacks", "destination", orders);
        long duplicates = handled.values().stream().filter(n -> n > 1).count();
        System.out.printf("failover: published=%d failed=%d handled=%d duplicates=%d; decisions rabbit before cut %.0f, kafka during cut %.0f,"
                + " kafka total %.0f, resends after a failed primary %.0f, rabbit after restore %.0f%n", published, failed, handled.size(),
                duplicates, mark, afterCut, toKafka, fallbacks, counterAfterRestore(orders));
        assertThat(failed).isZero();
        assertThat(mark).isGreaterThan(0);
        assertThat(afterCut).as("traffic moved to the secondary while the primary was cut").isGreaterThan(0);
        assertThat(counterAfterRestore(orders)).as("traffic returned to the primary").isGreaterThan(0);
        assertThat(duplicates).as("each id handled once across both brokers").isZero();
    }

    @Test
    @DisplayName("failover whose primary is down when the application starts: it starts on the secondary and moves to the primary once it is up")
    void failoverPrimaryDownAtStart() throws Exception {
        String orders = destination("failover_cold");
        TcpProxy proxy = rabbitProxy();
        proxy.cut();
        Map<String, String> breaker = Map.of("switchboard.resilience.circuit-breaker.enabled", "true",
                "switchboard.resilience.timeout", "1s");
        Switchboard sb = closeAfter(builder()
                .instance("rabbit", "rabbitmq", props(rabbitVia(proxy), breaker, Map.of("rabbitmq.connection-name", orders)))
                .instance("kafka", "kafka", kafka())
                .route(orders, Route.failover("rabbit", "kafka")).build());
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        Subscription s = sb.subscriber(orders, TEXT).group("billing").subscribe((m, c) -> handled.merge(m.payload(), 1, Integer::sum));
        s.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        Publisher<String> p = sb.publisher(orders, TEXT).build();
        List<PublishReceipt> cold = publishKeyed(p, 0, 100, 10);
        assertThat(cold).allSatisfy(r -> assertThat(r.instance()).isEqualTo("kafka"));

        proxy.restore();
        int i = 100;
        String lastBroker = "kafka";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!lastBroker.equals("rabbit") && System.nanoTime() < deadline) {
            lastBroker = p.publish(Message.of("k" + i % 10, "k" + i % 10 + ":" + i)).toCompletableFuture().get(30, TimeUnit.SECONDS).instance();
            i++;
            Thread.sleep(100);
        }
        int published = i;
        System.out.printf("failover, primary down at start: %d published, first %d on kafka, then on %s%n", published, 100, lastBroker);
        assertThat(lastBroker).as("traffic moved to the primary once it was reachable").isEqualTo("rabbit");
        await().atMost(TIMEOUT).until(() -> handled.size() == published);
        assertThat(handled.values()).containsOnly(1);
    }

    private double mark;
    private double afterCut;
    private double markRestore = Double.MAX_VALUE;

    private double counterAfterRestore(String orders) {
        return Math.max(0, counter("switchboard.routing.decisions", "destination", orders, "instance", "rabbit") - markRestore);
    }

    @Test
    @DisplayName("migrate RabbitMQ -> Kafka with duplicates on both sides: each id handled once, and drained() completes")
    void migrate() throws Exception {
        String orders = destination("migrate");
        Switchboard sb = closeAfter(builder().instance("rabbit", "rabbitmq", rabbit()).instance("kafka", "kafka", kafka())
                .route(orders, Route.single("rabbit")).build());
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        // Held until the route is in migrate mode: RabbitMQ's copies of ids 1000..1499 are then still in
        // its backlog when Kafka's arrive (handled in single mode first, an id is not deduplicated, by design).
        CountDownLatch migrating = new CountDownLatch(1);
        Subscription s = sb.subscriber(orders, TEXT).group("billing").subscribe((m, c) -> {
            if (!migrating.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the test never switched " + orders + " to migrate");
            }
            handled.merge(m.id(), 1, Integer::sum);
            Thread.sleep(1); // a backlog builds up on RabbitMQ
        });
        s.ready().toCompletableFuture().get();
        Publisher<String> p = sb.publisher(orders, TEXT).build();
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            sent.add(p.publish(Message.builder("m" + i).key("k" + i % 30).id("id-" + i).build()).toCompletableFuture());
        }
        for (CompletableFuture<PublishReceipt> f : sent) {
            assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo("rabbit");
        }
        sb.routing().update(orders, Route.migrate("rabbit", "kafka"));
        migrating.countDown();
        sent.clear();
        for (int i = 1000; i < 2500; i++) { // ids 1000..1499 are now on both brokers
            sent.add(p.publish(Message.builder("m" + i).key("k" + i % 30).id("id-" + i).build()).toCompletableFuture());
        }
        for (CompletableFuture<PublishReceipt> f : sent) {
            assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo("kafka");
        }
        sb.routing().drained(orders).toCompletableFuture().get(60, TimeUnit.SECONDS);
        await().atMost(TIMEOUT).until(() -> handled.size() == 2500);
        // a late duplicate would show within this time: the handled counts must stay at one per id throughout
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> handled.size() == 2500 && handled.values().stream().allMatch(n -> n == 1));
        System.out.printf("migrate: %d ids handled, max handled per id %d, drained%n", handled.size(),
                handled.values().stream().mapToInt(Integer::intValue).max().orElse(0));
        assertThat(handled.values()).containsOnly(1);
        sb.routing().update(orders, Route.single("kafka"));
        assertThat(p.publish("after").toCompletableFuture().get(30, TimeUnit.SECONDS).instance()).isEqualTo("kafka");
    }
}
