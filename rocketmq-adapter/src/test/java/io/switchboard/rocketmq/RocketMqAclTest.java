package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.PublishException;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.testkit.Recorder;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The adapter against a real RocketMQ 5.5.0 broker with ACL 2.0 on (authentication and authorization), started in
 * this JVM: signed with the right credentials it provisions, publishes and consumes; with a wrong secret key, or
 * none, the broker refuses it and the error names the access key, never the secret.
 */
@DisplayName("RocketMQ with ACL credentials (rocketmq.access-key, rocketmq.secret-key)")
class RocketMqAclTest {

    private static final String ACCESS_KEY = "switchboard-acl-user";
    private static final String SECRET_KEY = "right-Secret-7f3a9c";
    private static final String WRONG_SECRET = "wrong-Secret-0b1d2e";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Codec<String> TEXT = Codec.utf8();
    private static final AtomicInteger DESTINATIONS = new AtomicInteger();

    private static EmbeddedRocketMq rocketMq;

    @BeforeAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void startBroker() {
        // a broker that cannot start throws here, with why, and every test fails with it
        rocketMq = EmbeddedRocketMq.startWithAcl(ACCESS_KEY, SECRET_KEY);
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void stopBroker() {
        if (rocketMq != null) {
            rocketMq.close();
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @DisplayName("with the right credentials: creates the topic, publishes and consumes every message")
    void publishesAndConsumes() {
        String destination = destination();
        int count = 20;
        Recorder<String> received = new Recorder<>(WAIT);
        try (Switchboard sb = switchboard(SECRET_KEY)) {
            Subscription subscription = sb.subscriber(destination, TEXT).group("acl-readers").subscribe(received);
            join(subscription.ready().toCompletableFuture());
            Publisher<String> publisher = sb.publisher(destination, TEXT).build();
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(publisher.publish("signed-" + i).toCompletableFuture());
            }
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            List<String> payloads = received.awaitCount(count).payloads();
            assertThat(payloads).hasSize(count);
            assertThat(payloads).containsExactlyInAnyOrderElementsOf(
                    java.util.stream.IntStream.range(0, count).mapToObj(i -> "signed-" + i).toList());
            report("right-credentials", count, payloads.size());
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @DisplayName("with a wrong secret key: topic creation and publishing are refused, naming the access key and not the "
            + "secret; nothing reaches the topic")
    void wrongSecretRefused() throws Exception {
        // the refused topic creation: a topic nobody made
        try (Switchboard wrong = switchboard(WRONG_SECRET)) {
            assertThatThrownBy(() -> wrong.publisher(destination(), TEXT).build())
                    .isInstanceOf(SwitchboardException.class)
                    .satisfies(e -> System.out.println("refusal (topic creation): " + e.getMessage()))
                    .hasMessageContaining("access key '" + ACCESS_KEY + "'")
                    .hasMessageContaining("check the credentials")
                    .hasMessageContaining("check signature failed")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(WRONG_SECRET).doesNotContain(SECRET_KEY));
        }
        // the refused send: a topic the broker has, read by a subscriber with the right credentials
        String destination = destination();
        rocketMq.createTopic(destination, 2);
        Recorder<String> received = new Recorder<>(WAIT);
        try (Switchboard right = switchboard(SECRET_KEY); Switchboard wrong = switchboard(WRONG_SECRET)) {
            join(right.subscriber(destination, TEXT).group("acl-watchers").subscribe(received).ready()
                    .toCompletableFuture());
            Publisher<String> publisher = wrong.publisher(destination, TEXT).build();
            assertThatThrownBy(() -> join(publisher.publish("must-not-arrive").toCompletableFuture()))
                    .hasCauseInstanceOf(PublishException.class)
                    .satisfies(e -> System.out.println("refusal (publish): " + e.getCause().getMessage()))
                    .satisfies(e -> assertThat(e.getCause().getMessage())
                            .contains("access key '" + ACCESS_KEY + "'")
                            .contains("check the credentials")
                            .doesNotContain(WRONG_SECRET).doesNotContain(SECRET_KEY));
            // a right publisher's message after it arrives alone: the refused one was never stored
            join(right.publisher(destination, TEXT).build().publish("marker").toCompletableFuture());
            assertThat(received.awaitCount(1).payloads()).containsExactly("marker");
            report("wrong-secret-refused", 0, received.payloads().size() - 1);
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @DisplayName("with a wrong secret key: a subscription to a topic the broker has fails, naming the access key and "
            + "not the secret")
    void wrongSecretSubscriptionRefused() {
        String destination = destination();
        rocketMq.createTopic(destination, 2);
        try (Switchboard wrong = switchboard(WRONG_SECRET)) {
            Recorder<String> received = new Recorder<>(WAIT);
            // refused while provisioning (subscribe throws) or while the consumer starts (ready() fails)
            assertThatThrownBy(() -> join(wrong.subscriber(destination, TEXT).group("acl-intruders").subscribe(received)
                    .ready().toCompletableFuture()))
                    .satisfies(e -> System.out.println("refusal (subscribe): " + failure(e).getMessage()))
                    .satisfies(e -> assertThat(failure(e)).isInstanceOf(SwitchboardException.class))
                    .satisfies(e -> assertThat(failure(e).getMessage())
                            .contains("access key '" + ACCESS_KEY + "'")
                            .contains("check the credentials")
                            .doesNotContain(WRONG_SECRET).doesNotContain(SECRET_KEY));
            report("wrong-secret-subscribe-refused", 0, received.payloads().size());
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @DisplayName("without credentials: refused, and the error says to set rocketmq.access-key and rocketmq.secret-key")
    void noCredentialsRefused() {
        try (Switchboard none = Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                .property("rocketmq.admin-timeout", "5s").build()) {
            assertThatThrownBy(() -> none.publisher(destination(), TEXT).build())
                    .isInstanceOf(SwitchboardException.class)
                    .satisfies(e -> System.out.println("refusal (no credentials): " + e.getMessage()))
                    .hasMessageContaining("without ACL credentials")
                    .hasMessageContaining("set rocketmq.access-key and rocketmq.secret-key");
            report("no-credentials-refused", 0, 0);
        }
    }

    private static Switchboard switchboard(String secretKey) {
        return Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                .property("rocketmq.access-key", ACCESS_KEY)
                .property("rocketmq.secret-key", secretKey)
                .property("rocketmq.admin-timeout", "5s")
                .build();
    }

    private static String destination() {
        return "acl-" + DESTINATIONS.incrementAndGet() + "-" + System.nanoTime() % 100_000;
    }

    private static <T> T join(CompletableFuture<T> stage) {
        try {
            return stage.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new CompletionFailed(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("not completed within " + WAIT, e);
        }
    }

    /** The failure itself, out of the wrapper {@link #join} puts around a stage's. */
    private static Throwable failure(Throwable e) {
        return e instanceof CompletionFailed ? e.getCause() : e;
    }

    /** A stage that completed with {@code getCause()}. */
    private static final class CompletionFailed extends RuntimeException {
        CompletionFailed(Throwable cause) {
            super("completed exceptionally: " + cause, cause);
        }
    }

    private static void report(String name, int sent, int received) {
        System.out.println("adopt=rocketmq-acl broker=rocketmq case=" + name + " sent=" + sent + " received=" + received
                + " lost=" + Math.max(0, sent - received));
    }
}
