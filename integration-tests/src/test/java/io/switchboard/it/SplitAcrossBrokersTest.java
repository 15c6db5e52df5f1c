package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Publisher;
import io.switchboard.PublishReceipt;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Split routing across real brokers")
class SplitAcrossBrokersTest extends RoutingTestSupport {

    @Test
    @DisplayName("90/10 Kafka/RabbitMQ, 10,000 keyed messages: each key on one broker, shares within 3 points, nothing lost")
    void ninetyTen() throws Exception {
        String orders = destination("split");
        Switchboard sb = closeAfter(builder().instance("kafka", "kafka", kafka()).instance("rabbit", "rabbitmq", rabbit())
                .route(orders, Route.split(Map.of("kafka", 90, "rabbit", 10))).build());
        Set<String> received = ConcurrentHashMap.newKeySet();
        Subscription s = sb.subscriber(orders, TEXT).group("billing").concurrency(2).subscribe((m, c) -> received.add(m.payload()));
        s.ready().toCompletableFuture().get();
        Publisher<String> p = sb.publisher(orders, TEXT).build();

        List<PublishReceipt> receipts = publishKeyed(p, 0, 10_000, 1_000);

        Map<String, Set<String>> brokersOfKey = new HashMap<>();
        int onRabbit = 0;
        for (int i = 0; i < receipts.size(); i++) {
            brokersOfKey.computeIfAbsent("k" + (i % 1000), k -> new HashSet<>()).add(receipts.get(i).instance());
            onRabbit += receipts.get(i).instance().equals("rabbit") ? 1 : 0;
        }
        assertThat(brokersOfKey).hasSize(1000).allSatisfy((key, brokers) -> assertThat(brokers).hasSize(1));
        double share = onRabbit / 10_000.0;
        System.out.printf("split 90/10: rabbit carried %d of 10000 (%.1f%%)%n", onRabbit, share * 100);
        assertThat(share).isBetween(0.07, 0.13);
        await().atMost(TIMEOUT).until(() -> received.size() == 10_000);
        assertThat(counter("switchboard.routing.decisions", "destination", orders, "instance", "rabbit")).isEqualTo(onRabbit);
        assertThat(counter("switchboard.routing.decisions", "destination", orders, "instance", "kafka")).isEqualTo(10_000 - onRabbit);
    }

    @Test
    @DisplayName("weights flipped mid-stream (10/90 to 90/10) while RabbitMQ lags: nothing lost; keys that stay keep their order, moved keys' reorders measured")
    void flipMidStream() throws Exception {
        String orders = destination("flip");
        Switchboard sb = closeAfter(builder().instance("kafka", "kafka", kafka()).instance("rabbit", "rabbitmq", rabbit())
                .route(orders, Route.split(Map.of("kafka", 10, "rabbit", 90))).build());
        Map<String, List<Integer>> handled = new ConcurrentHashMap<>();
        Subscription s = sb.subscriber(orders, TEXT).group("billing").concurrency(4).subscribe((m, c) -> {
            if (c.instance().equals("rabbit")) {
                Thread.sleep(1); // RabbitMQ's consumers lag, so keys moving to Kafka still have messages waiting there
            }
            String[] parts = m.payload().split(":");
            handled.computeIfAbsent(parts[0], k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                    .add(Integer.parseInt(parts[1]));
        });
        s.ready().toCompletableFuture().get();
        Publisher<String> p = sb.publisher(orders, TEXT).build();

        List<PublishReceipt> before = new ArrayList<>();
        List<PublishReceipt> after = new ArrayList<>();
        Thread flipper = new Thread(() -> sb.routing().update(orders, Route.split(Map.of("kafka", 90, "rabbit", 10))));
        for (int batch = 0; batch < 20; batch++) {
            List<PublishReceipt> r = publishKeyed(p, batch * 250, 250, 200);
            (batch < 10 ? before : after).addAll(r);
            if (batch == 9) {
                flipper.start();
                flipper.join();
            }
        }
        Map<String, String> brokerBefore = new HashMap<>();
        Map<String, String> brokerAfter = new HashMap<>();
        for (int i = 0; i < 2500; i++) {
            brokerBefore.put("k" + (i % 200), before.get(i).instance());
            brokerAfter.put("k" + ((2500 + i) % 200), after.get(i).instance());
        }
        await().atMost(TIMEOUT).until(() -> handled.values().stream().mapToLong(l -> {
            synchronized (l) { // the handlers add to these lists meanwhile
                return l.stream().distinct().count();
            }
        }).sum() == 5000);

        int moved = 0;
        long movedReorders = 0;
        long stayedReorders = 0;
        for (Map.Entry<String, List<Integer>> e : handled.entrySet()) {
            List<Integer> seq;
            synchronized (e.getValue()) {
                seq = e.getValue().stream().distinct().toList();
            }
            long reorders = 0;
            for (int i = 1; i < seq.size(); i++) {
                reorders += seq.get(i) < seq.get(i - 1) ? 1 : 0;
            }
            if (brokerBefore.get(e.getKey()).equals(brokerAfter.get(e.getKey()))) {
                stayedReorders += reorders;
            } else {
                moved++;
                movedReorders += reorders;
            }
        }
        System.out.printf("flip 10/90 -> 90/10: %d of 200 keys moved broker; reorders: moved keys %d, unmoved keys %d%n", moved,
                movedReorders, stayedReorders);
        assertThat(moved).isGreaterThan(100);
        assertThat(stayedReorders).isZero();
        assertThat(counter("switchboard.routing.changes", "destination", orders)).isEqualTo(1);
    }

    @Test
    @DisplayName("three brokers: Kafka, RabbitMQ and RocketMQ share one destination, one subscription reads all")
    void threeBrokers() throws Exception {
        String orders = destination("three");
        Switchboard sb = closeAfter(builder().instance("kafka", "kafka", kafka()).instance("rabbit", "rabbitmq", rabbit())
                .instance("rocket", "rocketmq", rocketmq())
                .route(orders, Route.split(Map.of("kafka", 34, "rabbit", 33, "rocket", 33))).build());
        Set<String> received = ConcurrentHashMap.newKeySet();
        Subscription s = sb.subscriber(orders, TEXT).group("billing").subscribe((m, c) -> received.add(m.payload()));
        s.ready().toCompletableFuture().get();
        List<PublishReceipt> receipts = publishKeyed(sb.publisher(orders, TEXT).build(), 0, 1_500, 300);
        Map<String, Long> perBroker = new HashMap<>();
        receipts.forEach(r -> perBroker.merge(r.instance(), 1L, Long::sum));
        System.out.println("three-way split: " + perBroker);
        assertThat(perBroker).containsOnlyKeys("kafka", "rabbit", "rocket");
        await().atMost(TIMEOUT).until(() -> received.size() == 1_500);
    }
}
