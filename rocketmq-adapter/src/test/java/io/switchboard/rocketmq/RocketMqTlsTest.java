package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.switchboard.Codec;
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
import java.util.stream.IntStream;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The adapter against a real RocketMQ 5.5.0 name server and broker that take TLS only
 * ({@code tls.server.mode=enforcing}), with a self-signed certificate the client verifies: RocketMQ's client trust
 * settings are JVM-wide, and {@link EmbeddedRocketMq#startWithTls()} points them at the broker's certificate while
 * it runs.
 */
@DisplayName("RocketMQ over TLS (rocketmq.tls)")
class RocketMqTlsTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Codec<String> TEXT = Codec.utf8();

    private static EmbeddedRocketMq rocketMq;

    @BeforeAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void startBroker() {
        // a broker that cannot start throws here, with why, and every test fails with it
        rocketMq = EmbeddedRocketMq.startWithTls();
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
    @DisplayName("with rocketmq.tls=true: creates the topic, publishes and consumes every message over TLS")
    void publishesAndConsumesOverTls() {
        assertThat(TlsSystemConfig.tlsClientAuthServer).as("the client verifies the broker's certificate").isTrue();
        assertThat(TlsSystemConfig.tlsTestModeEnable).as("not RocketMQ's trust-anything test mode").isFalse();
        String destination = "tls-" + System.nanoTime() % 100_000;
        int count = 20;
        Recorder<String> received = new Recorder<>(WAIT);
        try (Switchboard sb = switchboard(true)) {
            Subscription subscription = sb.subscriber(destination, TEXT).group("tls-readers").subscribe(received);
            join(subscription.ready().toCompletableFuture());
            Publisher<String> publisher = sb.publisher(destination, TEXT).build();
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(publisher.publish("encrypted-" + i).toCompletableFuture());
            }
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            List<String> payloads = received.awaitCount(count).payloads();
            assertThat(payloads).containsExactlyInAnyOrderElementsOf(
                    IntStream.range(0, count).mapToObj(i -> "encrypted-" + i).toList());
            report("tls", count, payloads.size());
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @DisplayName("without rocketmq.tls the broker's name server closes the connection: nothing is provisioned or sent")
    void plainClientRefused() {
        try (Switchboard sb = switchboard(false)) {
            assertThatThrownBy(() -> sb.publisher("tls-plain-" + System.nanoTime() % 100_000, TEXT).build())
                    .isInstanceOf(SwitchboardException.class)
                    .satisfies(e -> System.out.println("refusal (plain client): " + e.getMessage()))
                    .hasMessageContaining(rocketMq.nameServerAddress())
                    .hasMessageContaining("then set rocketmq.tls=true");
            report("plain-client-refused", 0, 0);
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    @DisplayName("a client that trusts another certificate does not connect: the broker's certificate is verified")
    void untrustedCertificateRefused() throws Exception {
        SelfSignedCertificate other = new SelfSignedCertificate("localhost");
        String trusted = TlsSystemConfig.tlsClientTrustCertPath;
        try {
            // read when a RocketMQ client starts: only this Switchboard's clients trust the other certificate
            TlsSystemConfig.tlsClientTrustCertPath = other.certificate().getPath();
            try (Switchboard sb = switchboard(true)) {
                assertThatThrownBy(() -> sb.publisher("tls-untrusted-" + System.nanoTime() % 100_000, TEXT).build())
                        .isInstanceOf(SwitchboardException.class)
                        .satisfies(e -> System.out.println("refusal (untrusted certificate): " + e.getMessage()))
                        .hasMessageContaining("trusts the broker's certificate");
            }
            report("untrusted-certificate-refused", 0, 0);
        } finally {
            TlsSystemConfig.tlsClientTrustCertPath = trusted;
            other.delete();
        }
    }

    private static Switchboard switchboard(boolean tls) {
        return Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                .property("rocketmq.tls", Boolean.toString(tls))
                .property("rocketmq.admin-timeout", "5s")
                .build();
    }

    private static <T> T join(CompletableFuture<T> stage) {
        try {
            return stage.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (Exception e) {
            throw new AssertionError("not completed normally within " + WAIT + ": " + e, e);
        }
    }

    private static void report(String name, int sent, int received) {
        System.out.println("adopt=rocketmq-acl broker=rocketmq case=" + name + " sent=" + sent + " received=" + received
                + " lost=" + Math.max(0, sent - received));
    }
}
