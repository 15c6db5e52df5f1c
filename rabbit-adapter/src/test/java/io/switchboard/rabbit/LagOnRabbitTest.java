package io.switchboard.rabbit;

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
import java.util.function.LongPredicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Consumer lag from RabbitMQ's own figure (queue depth plus the consumer's unsettled deliveries) in the comparison and
 * health (issue 36), on the local server: a stopped consumer's lag grows, the instance turns DEGRADED past
 * {@code switchboard.lag-threshold}, and recovers once the consumer resumes.
 */
@DisplayName("Consumer lag in the comparison and health (RabbitMQ)")
class LagOnRabbitTest {

    @Test
    @DisplayName("a stopped consumer's lag grows, DEGRADED past 100 records, UP again after it resumes")
    void lagGrowsDegradesAndRecovers() {
        String destination = "lag-" + UUID.randomUUID();
        try (Switchboard sb = Switchboard.builder().instance("r", "rabbitmq", Map.of("switchboard.lag-threshold", "100",
                "switchboard.lag-refresh", "200ms")).build()) {
            CountDownLatch resume = new CountDownLatch(1);
            AtomicLong handled = new AtomicLong();
            sb.subscriber(destination, Codec.utf8()).group("billing").maxInFlight(16).subscribe((m, c) -> {
                if (!resume.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never resumed the consumer");
                }
                handled.incrementAndGet();
            }).ready().toCompletableFuture().join();
            try {
                Publisher<String> pub = sb.publisher(destination, Codec.utf8()).build();
                publish(pub, 52);
                // RabbitMQ's figure: ready messages plus those handed to the handler; up to maxInFlight (16) delivered
                // into amqp-client's buffer behind the blocked handler are in neither
                long first = awaitLag(sb, destination, l -> l >= 52 - 16);
                assertThat(health(sb).status()).isEqualTo(BrokerHealth.Status.UP);
                publish(pub, 300);
                long second = awaitLag(sb, destination, l -> l >= 352 - 16);
                await("DEGRADED past 100").atMost(Duration.ofSeconds(10))
                        .until(() -> health(sb).status() == BrokerHealth.Status.DEGRADED);
                System.out.printf("rabbitmq lag of group billing while stopped: %d, then %d after 300 more; health %s%n", first,
                        second, health(sb));
                assertThat(health(sb).reason()).contains("group 'billing'").contains("switchboard.lag-threshold=100");
                resume.countDown();
                awaitLag(sb, destination, l -> l == 0);
                await("health UP again").atMost(Duration.ofSeconds(30))
                        .until(() -> health(sb).status() == BrokerHealth.Status.UP);
                assertThat(handled.get()).isEqualTo(352);
            } finally {
                resume.countDown();
                sb.instance("r").provisioning().deleteDestination(destination);
            }
        }
    }

    private static BrokerHealth health(Switchboard sb) {
        return sb.instance("r").health(Duration.ofSeconds(5));
    }

    private static long awaitLag(Switchboard sb, String destination, LongPredicate until) {
        AtomicLong seen = new AtomicLong(-1);
        try {
            await("lag of billing on " + destination).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        Long lag = sb.comparison().report(destination).instances().get(0).lag().get("billing");
                        seen.set(lag == null ? -1 : lag);
                        return lag != null && until.test(lag);
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("lag last read " + seen.get() + "; report: " + sb.comparison().report(destination).toJson(), e);
        }
        return seen.get();
    }

    private static void publish(Publisher<String> pub, int n) {
        for (int i = 0; i < n; i++) {
            pub.publish(Message.builder("o" + i).key("k" + (i % 7)).build()).toCompletableFuture().join();
        }
    }
}
