package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.switchboard.CircuitOpenException;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.ChildConsumer;
import io.switchboard.testkit.fault.FastBreaker;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults survived, nothing lost: each test publishes a known keyed stream at-least-once through a
 * broker of its own, injects the fault mid-stream, and checks that every acknowledged message was
 * consumed. A publish that failed during the fault was never accepted, so it is not lost; a
 * message consumed without its acknowledgement (the acknowledgement lost in the fault) is not lost
 * either. Each prints the figure line of its {@link FaultLedger}; the stream and its checks are {@link FaultStream}.
 *
 * <p>Two dedicated brokers with small settings: one that is stopped and restarted, and one that
 * clients reach only through a {@link TcpProxy} (it advertises the proxy's port), for the network
 * faults.
 */
@Tag("fault")
@DisplayName("Kafka through faults")
class KafkaFaultTest {

    private static final int KEYS = FaultStream.KEYS;
    private static final int PARTITIONS = FaultStream.PARTITIONS;
    private static final Duration OUTAGE = Duration.ofSeconds(3);
    /** Added each way by the network-delay test: a tenth of kafka.request.timeout.ms below. */
    private static final Duration LATENCY = Duration.ofMillis(300);
    private static final Duration SETTLE = FaultStream.SETTLE;
    /** The consumer-killed test: messages published, and how many the child handles before it is killed. */
    private static final int KILLED_MESSAGES = 2_000;
    private static final int KILL_AFTER = 300;

    private static EmbeddedKafka restartable;
    private static TcpProxy proxy;
    private static EmbeddedKafka proxied;

    @BeforeAll
    static void startBrokers() {
        restartable = smallBroker(EmbeddedKafka.builder()).start();
        int brokerPort = freePort();
        proxy = TcpProxy.start("127.0.0.1", brokerPort);
        proxied = smallBroker(EmbeddedKafka.builder().port(brokerPort).advertisedPort(proxy.port())).start();
    }

    @AfterAll
    static void stopBrokers() {
        try (EmbeddedKafka first = restartable; TcpProxy second = proxy; EmbeddedKafka third = proxied) {
            // closed in reverse order: the proxied broker, its proxy, the restartable broker
        }
    }

    @AfterEach
    void restoreProxy() {
        if (proxy != null) {
            proxy.restore();
            proxy.delay(Duration.ZERO);
        }
    }

    @Test
    @DisplayName("a broker restart on the same data and port mid-stream loses no acknowledged message")
    void brokerRestart() throws Exception {
        FaultLedger ledger = new FaultLedger("broker-restart", "kafka");
        FaultStream stream = FaultStream.run(ledger, restartable.bootstrapServers(), Map.of(), OUTAGE, restartable::stop,
                restartable::restart);

        stream.assertSurvived();
    }

    @Test
    @DisplayName("a network cut of a few seconds mid-stream loses no acknowledged message")
    void networkCut() throws Exception {
        FaultLedger ledger = new FaultLedger("network-cut", "kafka");
        FaultStream stream = FaultStream.run(ledger, throughProxy(), Map.of(), OUTAGE, proxy::cut, proxy::restore);

        stream.assertSurvived();
    }

    @Test
    @DisplayName("added latency of a few seconds mid-stream loses nothing and fails nothing: acknowledgements only come later")
    void networkDelay() throws Exception {
        FaultLedger ledger = new FaultLedger("network-delay", "kafka");
        FaultStream stream = FaultStream.run(ledger, throughProxy(), Map.of(), OUTAGE, () -> proxy.delay(LATENCY),
                () -> proxy.delay(Duration.ZERO));

        assertThat(stream.ackedDuringFault.get()).as("publishes acknowledged while delayed: " + ledger.line())
                .isPositive();
        assertThat(Duration.ofNanos(stream.quickestAckDuringFault.get()))
                .as("the quickest acknowledgement of a delayed publish (the delay was real)")
                .isGreaterThanOrEqualTo(LATENCY);
        assertThat(ledger.failedCount()).as("failed publishes: " + stream.errors).isZero();
        stream.assertNothingLost();
    }

    @Test
    @DisplayName("a half-open connection (bytes stop, sockets stay open) mid-stream loses no acknowledged message")
    void halfOpen() throws Exception {
        FaultLedger ledger = new FaultLedger("half-open", "kafka");
        // longer than kafka.request.timeout.ms, so that the clients give up on the silent connections
        FaultStream stream = FaultStream.run(ledger, throughProxy(), Map.of(), OUTAGE.plusSeconds(1), proxy::halfOpen, proxy::restore);

        stream.assertSurvived();
    }

    @Test
    @DisplayName("during a cut the circuit breaker opens and publishes fail fast; after it closes by itself, publishes succeed")
    void circuitBreakerDuringCut() throws Exception {
        FaultLedger ledger = new FaultLedger("circuit-breaker", "kafka");
        // once the producer loses the broker it forgets the topic's metadata, and send() blocks for it (up to
        // max.block.ms) outside the time limit: a small max.block.ms turns each blocked call into a failure the
        // breaker counts, so that it opens however few calls the blocked publishing thread makes
        Map<String, String> resilience = FastBreaker.properties();
        resilience.put("kafka.max.block.ms", "500");
        FaultStream stream = FaultStream.run(ledger, throughProxy(), resilience, OUTAGE, proxy::cut, proxy::restore);

        assertThat(stream.errors)
                .as("publish errors while the proxy was cut")
                .anySatisfy(error -> assertThat(error).isInstanceOf(CircuitOpenException.class));
        assertThat(stream.breakerStateAtEnd)
                .as("circuit breaker state after the restore")
                .isEqualTo(CircuitBreaker.State.CLOSED);
        stream.assertSurvived();
    }

    @Test
    @DisplayName("a consumer killed with kill -9 mid-processing loses no acknowledged message: another member of its group gets the rest")
    void consumerKilledMidProcessing(@TempDir Path dir) throws Exception {
        FaultLedger ledger = new FaultLedger("consumer-killed", "kafka");
        String topic = "killed-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "g-" + topic;
        // the group notices the killed member after the session timeout (the broker's minimum, 6 s), not Kafka's 45 s
        Map<String, String> membership = Map.of(
                "kafka.session.timeout.ms", "6000",
                "kafka.heartbeat.interval.ms", "1000");
        Map<String, String> childProperties = new LinkedHashMap<>(membership);
        childProperties.put("kafka.bootstrap.servers", restartable.bootstrapServers());
        // the child is a new JVM on C1 only, started while other modules' brokers may keep both cores busy: its first
        // admin call gets 30 s, not the 5 s default, to find the broker (not the behaviour under test)
        childProperties.put("kafka.connect-timeout", "30s");
        try (Switchboard sb = FaultStream.switchboard(restartable.bootstrapServers(), membership)) {
            sb.provisioning().ensureDestination(DestinationSpec.of(topic, PARTITIONS));
            ChildConsumer child = ChildConsumer.start("kafka", childProperties, topic, group, dir.resolve("handled.txt"),
                    10);
            try {
                child.awaitReady(SETTLE);
                List<CompletableFuture<?>> sent = new ArrayList<>(KILLED_MESSAGES);
                int handledByChild;
                try (Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                        .build()) {
                    for (int i = 0; i < KILLED_MESSAGES; i++) {
                        sent.add(publishTo(publisher, "k-" + (i % KEYS), "m-" + i, ledger));
                    }
                    FaultStream.awaitQuietly(() -> child.handledPayloads().size() >= KILL_AFTER || !child.isAlive());
                    assertThat(child.isAlive()).as("child consumer still handling (output in " + child.logFile() + ")")
                            .isTrue();

                    child.kill();
                    List<String> handled = child.handledPayloads();
                    handled.forEach(ledger::consumed);
                    handledByChild = handled.size();
                    assertThat(handled.size()).as("handled by the child before the kill").isGreaterThanOrEqualTo(KILL_AFTER);
                    assertThat(handled.size()).as("killed mid-processing, not after").isLessThan(KILLED_MESSAGES);

                    try (Subscription successor = sb.subscriber(topic, Codec.utf8()).group(group)
                            .delivery(Delivery.AT_LEAST_ONCE)
                            .subscribe((message, context) -> ledger.consumed(message.payload()))) {
                        FaultStream.awaitQuietly(() -> sent.stream().allMatch(CompletableFuture::isDone) && ledger.nothingLost());
                    }
                }
                System.out.println(ledger.line());
                System.out.println("consumer-killed: the child handled " + handledByChild + " before the kill");
                assertThat(sent).as("every publish completed: " + ledger.line()).allMatch(CompletableFuture::isDone);
                assertThat(ledger.ackedCount()).as(ledger.line()).isEqualTo(KILLED_MESSAGES);
                assertThat(ledger.lostCount()).as(ledger.line()).isZero();
                assertThat(ledger.line()).contains(" lost=0 ");
            } finally {
                child.kill();
            }
        }
    }

    private static CompletableFuture<?> publishTo(Publisher<String> publisher, String key, String payload,
            FaultLedger ledger) {
        return ledger.track(payload, () -> publisher.publish(Message.of(key, payload)));
    }

    private static String throughProxy() {
        return "127.0.0.1:" + proxy.port();
    }

    /** A broker with few threads and small buffers: several run in the test JVM. */
    private static EmbeddedKafka.Builder smallBroker(EmbeddedKafka.Builder builder) {
        return builder
                .brokerProperty("num.network.threads", "2")
                .brokerProperty("num.io.threads", "2")
                .brokerProperty("background.threads", "2")
                .brokerProperty("num.recovery.threads.per.data.dir", "1")
                .brokerProperty("log.cleaner.threads", "1")
                .brokerProperty("log.segment.bytes", Integer.toString(16 * 1024 * 1024))
                .brokerProperty("socket.request.max.bytes", Integer.toString(16 * 1024 * 1024));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on 127.0.0.1 for the proxied broker", e);
        }
    }
}
