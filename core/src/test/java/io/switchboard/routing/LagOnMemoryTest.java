package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.BrokerHealth;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Consumer lag in the comparison and in health (issue 36), on the in-memory broker: a consumer that stops mid-stream
 * shows its lag growing, turns the instance DEGRADED past {@code switchboard.lag-threshold}, and recovers when resumed.
 */
@DisplayName("Consumer lag in the comparison and health (memory broker)")
class LagOnMemoryTest {

    private final Switchboard sb = Switchboard.builder()
            .instance("m", "memory", Map.of("memory.broker", "lag-" + UUID.randomUUID(),
                    "switchboard.lag-threshold", "50", "switchboard.lag-refresh", "100ms"))
            .build();

    @AfterEach
    void close() {
        sb.close();
    }

    @Test
    @DisplayName("a stopped consumer's lag grows, health turns DEGRADED past the threshold, and both recover once it resumes")
    void lagGrowsDegradesAndRecovers() {
        CountDownLatch resume = new CountDownLatch(1);
        AtomicLong handled = new AtomicLong();
        sb.subscriber("orders", Codec.utf8()).group("billing").subscribe((m, c) -> {
            if (!resume.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never resumed the consumer");
            }
            handled.incrementAndGet();
        }).ready().toCompletableFuture().join();
        Publisher<String> pub = sb.publisher("orders", Codec.utf8()).build();
        publish(pub, 100);
        long first = awaitLag(l -> l >= 90);
        assertThat(health().status()).isEqualTo(BrokerHealth.Status.DEGRADED);
        assertThat(health().reason()).contains("group 'billing'").contains("'orders'").contains("switchboard.lag-threshold=50");
        publish(pub, 200);
        long second = awaitLag(l -> l >= first + 190);
        System.out.printf("lag of group billing while stopped: %d, then %d after 200 more; health %s%n", first, second,
                health());
        assertThat(sb.comparison().report("orders").toTable()).contains("consumer lag (records)").contains("billing=" + second);
        resume.countDown();
        awaitLag(l -> l == 0);
        await("health UP again").atMost(Duration.ofSeconds(30)).until(() -> health().status() == BrokerHealth.Status.UP);
        assertThat(handled.get()).isEqualTo(300);
        assertThat(sb.comparison().report().instances().get(0).lag()).containsEntry("orders/billing", 0L);
    }

    private BrokerHealth health() {
        return sb.instance("m").health(Duration.ofSeconds(5));
    }

    private long awaitLag(java.util.function.LongPredicate until) {
        AtomicLong seen = new AtomicLong(-1);
        await("lag of billing on orders").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            Long lag = sb.comparison().report("orders").instances().get(0).lag().get("billing");
            seen.set(lag == null ? -1 : lag);
            return lag != null && until.test(lag);
        });
        return seen.get();
    }

    private static void publish(Publisher<String> pub, int n) {
        for (int i = 0; i < n; i++) {
            pub.publish(Message.builder("o" + i).key("k" + (i % 7)).build()).toCompletableFuture().join();
        }
    }
}
