package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 34's story: an order service schedules "cancel if unpaid in 3 s" messages and a billing subscriber takes
 * only tag {@code paid}; its destinations move RocketMQ -> Kafka -> RabbitMQ -> memory at run time, and on each
 * broker the delays and the filter keep working (none early, none lost, nothing of another tag).
 */
@DisplayName("One application switched across every broker keeps its delays and its filter")
class SwitchAnyApplicationTest extends RoutingTestSupport {

    private static final long DELAY_MS = 3000;

    @Test
    @DisplayName("rocketmq -> kafka -> rabbitmq -> memory: delays of 3 s and a tag filter on each")
    void delaysAndFilterOnEveryBroker() {
        String orders = destination("orders");
        String cancels = destination("cancels");
        Switchboard sb = closeAfter(builder()
                .instance("r", "rocketmq", rocketmq())
                .instance("k", "kafka", kafka())
                .instance("q", "rabbitmq", rabbit())
                .instance("m", "memory", Map.of("memory.broker", "story-" + UUID.randomUUID()))
                .route(orders, Route.single("r"))
                .route(cancels, Route.single("r"))
                .build());
        Map<String, Long> billed = new ConcurrentHashMap<>();
        Map<String, Long> cancelled = new ConcurrentHashMap<>();
        sb.subscriber(orders, TEXT).group("billing").filter("paid")
                .subscribe((m, c) -> billed.putIfAbsent(m.payload(), System.currentTimeMillis()));
        sb.subscriber(cancels, TEXT).group("canceller")
                .subscribe((m, c) -> cancelled.putIfAbsent(m.payload(), System.currentTimeMillis()));
        Publisher<String> orderPub = sb.publisher(orders, TEXT).build();
        Publisher<String> cancelPub = sb.publisher(cancels, TEXT).build();
        for (String instance : List.of("r", "k", "q", "m")) {
            sb.routing().update(orders, Route.single(instance));
            sb.routing().update(cancels, Route.single(instance));
            List<String> paid = new ArrayList<>();
            List<String> other = new ArrayList<>();
            Map<String, Long> due = new ConcurrentHashMap<>();
            for (int i = 0; i < 4; i++) {
                String order = instance + "-order-" + i;
                String tag = i % 2 == 0 ? "paid" : "new";
                PublishReceipt r = orderPub.publish(Message.builder(order).key(order).tag(tag).build()).toCompletableFuture().join();
                assertThat(r.instance()).as("order published on the route's instance").isEqualTo(instance);
                (tag.equals("paid") ? paid : other).add(order);
                String cancel = instance + "-cancel-" + i;
                due.put(cancel, System.currentTimeMillis() + DELAY_MS);
                r = cancelPub.publish(Message.builder(cancel).key(order).delay(Duration.ofMillis(DELAY_MS)).build())
                        .toCompletableFuture().join();
                assertThat(r.instance()).isEqualTo(instance);
            }
            // the last order is paid, and one key per order: waiting for the paid ones covers the other tag too
            String last = instance + "-order-last";
            orderPub.publish(Message.builder(last).key(last).tag("paid").build()).toCompletableFuture().join();
            paid.add(last);
            await("billing gets the paid orders on '" + instance + "'").atMost(TIMEOUT)
                    .until(() -> billed.keySet().containsAll(paid));
            await("the delayed cancels on '" + instance + "'").atMost(TIMEOUT)
                    .until(() -> cancelled.keySet().containsAll(due.keySet()));
            long early = due.entrySet().stream().filter(e -> cancelled.get(e.getKey()) < e.getValue() - 5).count();
            long lateMax = due.entrySet().stream().mapToLong(e -> cancelled.get(e.getKey()) - e.getValue()).max().orElse(0);
            System.out.printf("capability=delay broker=%s sent=%d received=%d early=%d late_max_ms=%d lost=0%n",
                    sb.instance(instance).brokerId(), due.size(), due.size(), early, lateMax);
            System.out.printf("capability=filter broker=%s sent=%d received=%d wrong=%d lost=0%n",
                    sb.instance(instance).brokerId(), paid.size() + other.size(), paid.size(),
                    other.stream().filter(billed::containsKey).count());
            assertThat(early).as("cancels delivered before their 3 s on '" + instance + "'").isZero();
            assertThat(other).as("orders of another tag reaching billing on '" + instance + "'")
                    .noneMatch(billed::containsKey);
        }
    }
}
