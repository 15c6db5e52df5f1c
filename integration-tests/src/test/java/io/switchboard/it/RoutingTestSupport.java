package io.switchboard.it;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Real brokers for routing tests: the embedded Kafka and RocketMQ (one per test JVM) and the
 * local RabbitMQ server. Each test gets unique destination names (valid on all three brokers) and
 * its RabbitMQ queues and exchanges are deleted afterwards; proxies and Switchboards are closed.
 */
abstract class RoutingTestSupport {

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final RabbitMqServer RABBIT = RabbitMqServer.local();

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final String run = "it_" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeEach
    void requireRabbit() {
        RABBIT.require();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        RABBIT.deleteNamesStartingWith(List.of(run));
    }

    /** A destination name unique to this test, valid on Kafka, RabbitMQ and RocketMQ. */
    String destination(String purpose) {
        return run + "_" + purpose;
    }

    static Map<String, String> kafka() {
        return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
    }

    static Map<String, String> rabbit() {
        return Map.of("rabbitmq.uri", RABBIT.uriWithCredentials());
    }

    /** RabbitMQ reached through {@code proxy}. */
    static Map<String, String> rabbitVia(TcpProxy proxy) {
        return Map.of("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/");
    }

    static Map<String, String> rocketmq() {
        return Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress());
    }

    /** A proxy in front of the local RabbitMQ, closed after the test (after the Switchboards). */
    TcpProxy rabbitProxy() {
        TcpProxy proxy = TcpProxy.start(RABBIT.host(), RABBIT.port());
        closeAfter.add(0, proxy);
        return proxy;
    }

    /** Properties merged, later ones winning. */
    @SafeVarargs
    static Map<String, String> props(Map<String, String>... maps) {
        Map<String, String> all = new LinkedHashMap<>();
        for (Map<String, String> m : maps) {
            all.putAll(m);
        }
        return all;
    }

    /** A Switchboard closed after the test. */
    Switchboard closeAfter(Switchboard sb) {
        closeAfter.add(sb);
        return sb;
    }

    /** Starts a builder bound to this test's registry. */
    Switchboard.Builder builder() {
        return Switchboard.builder().meterRegistry(registry);
    }

    /** Publishes {@code count} keyed messages "key:seq" (key = "k" + i % keys) and waits for every receipt. */
    static List<PublishReceipt> publishKeyed(Publisher<String> p, int from, int count, int keys) throws Exception {
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>(count);
        for (int i = from; i < from + count; i++) {
            String key = "k" + (i % keys);
            sent.add(p.publish(Message.of(key, key + ":" + i)).toCompletableFuture());
        }
        List<PublishReceipt> receipts = new ArrayList<>(count);
        for (CompletableFuture<PublishReceipt> f : sent) {
            receipts.add(f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
        return receipts;
    }

    static final Codec<String> TEXT = Codec.utf8();

    double counter(String name, String... tags) {
        var search = registry.find(name).tags(tags);
        return search.counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
