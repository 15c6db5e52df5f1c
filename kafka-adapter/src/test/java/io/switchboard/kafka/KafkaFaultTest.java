package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
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
 * either. Each prints the figure line of its {@link FaultLedger}.
 *
 * <p>Two dedicated brokers with small settings: one that is stopped and restarted, and one that
 * clients reach only through a {@link TcpProxy} (it advertises the proxy's port), for the network
 * faults.
 */
@Tag("fault")
@DisplayName("Kafka through faults")
class KafkaFaultTest {

    private static final int MESSAGES = 2_000;
    private static final int KEYS = 25;
    private static final int PARTITIONS = 3;
    /** The stream takes about {@code MESSAGES / RATE} seconds. */
    private static final int RATE = 250;
    private static final Duration OUTAGE = Duration.ofSeconds(3);
    /** Added each way by the network-delay test: a tenth of kafka.request.timeout.ms below. */
    private static final Duration LATENCY = Duration.ofMillis(300);
    private static final Duration SETTLE = Duration.ofSeconds(60);
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
        Stream stream = runStream(ledger, restartable.bootstrapServers(), Map.of(), OUTAGE, restartable::stop,
                restartable::restart);

        stream.assertSurvived();
    }

    @Test
    @DisplayName("a network cut of a few seconds mid-stream loses no acknowledged message")
    void networkCut() throws Exception {
        FaultLedger ledger = new FaultLedger("network-cut", "kafka");
        Stream stream = runStream(ledger, throughProxy(), Map.of(), OUTAGE, proxy::cut, proxy::restore);

        stream.assertSurvived();
    }

    @Test
    @DisplayName("added latency of a few seconds mid-stream loses nothing and fails nothing: acknowledgements only come later")
    void networkDelay() throws Exception {
        FaultLedger ledger = new FaultLedger("network-delay", "kafka");
        Stream stream = runStream(ledger, throughProxy(), Map.of(), OUTAGE, () -> proxy.delay(LATENCY),
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
        Stream stream = runStream(ledger, throughProxy(), Map.of(), OUTAGE.plusSeconds(1), proxy::halfOpen, proxy::restore);

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
        Stream stream = runStream(ledger, throughProxy(), resilience, OUTAGE, proxy::cut, proxy::restore);

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
        try (Switchboard sb = switchboard(restartable.bootstrapServers(), membership)) {
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
                    awaitQuietly(() -> child.handledPayloads().size() >= KILL_AFTER || !child.isAlive());
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
                        awaitQuietly(() -> sent.stream().allMatch(CompletableFuture::isDone) && ledger.nothingLost());
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

    /** What one stream did: the ledger and the figures taken around the fault. */
    private static final class Stream {

        final FaultLedger ledger;
        final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final AtomicInteger ackedBeforeFault = new AtomicInteger();
        final AtomicInteger ackedDuringFault = new AtomicInteger();
        final AtomicInteger ackedAfterRestore = new AtomicInteger();
        final AtomicLong longestCallNanos = new AtomicLong();
        final AtomicLong quickestAckDuringFault = new AtomicLong(Long.MAX_VALUE);
        final AtomicInteger callsInProgress = new AtomicInteger();
        volatile boolean faultStarted;
        volatile boolean faultInjected;
        volatile boolean healing;
        volatile boolean restored;
        long publishedBeforeFault;
        long publishedDuringFault;
        boolean callHeldAtHeal;
        long publishedAfterRestore;
        CircuitBreaker.State breakerStateAtEnd;

        Stream(FaultLedger ledger) {
            this.ledger = ledger;
        }

        /** Prints the figure line, and what happened around the fault. */
        void print() {
            System.out.println(ledger.line());
            System.out.println("  failed publishes: " + ledger.failedCount() + " " + errors.stream()
                    .collect(Collectors.groupingBy(e -> e.getClass().getSimpleName(), TreeMap::new, Collectors.counting()))
                    + ", first error: " + errors.stream().findFirst().map(Throwable::toString).orElse("none")
                    + "; publish calls during the fault: "
                    + publishedDuringFault + (callHeldAtHeal ? " (one held up when the fault ended)" : "")
                    + ", longest publish call: " + TimeUnit.NANOSECONDS.toMillis(longestCallNanos.get()) + " ms"
                    + (ackedDuringFault.get() > 0 ? "; " + ackedDuringFault + " made and acknowledged during the fault, "
                            + "the quickest in " + TimeUnit.NANOSECONDS.toMillis(quickestAckDuringFault.get()) + " ms" : ""));
        }

        /** The fault stopped the traffic, and nothing acknowledged was lost. */
        void assertSurvived() {
            String line = ledger.line();
            // once the clients lose the broker (stopped, or after a cut) the producer drops the topic's metadata and
            // its send() waits for it (up to max.block.ms): publishing goes on as calls made or as one call held up
            assertThat(publishedDuringFault > 0 || callHeldAtHeal)
                    .as("publish calls made during the fault, or one held up until its end: " + line)
                    .isTrue();
            assertThat(ackedDuringFault.get())
                    .as("publishes made during the fault and acknowledged before it ended (the fault must be real): " + line)
                    .isZero();
            assertNothingLost();
        }

        /** Every publish completed, some on each side of the fault, and every acknowledged one was consumed. */
        void assertNothingLost() {
            String line = ledger.line();
            assertThat(line).matches("fault=\\S+ broker=kafka published=\\d+ acked=\\d+ consumed=\\d+ unique=\\d+ "
                    + "lost=\\d+ duplicates=\\d+");
            assertThat(ledger.publishedCount()).as(line).isGreaterThanOrEqualTo(MESSAGES);
            assertThat(ledger.ackedCount()).as(line).isPositive();
            assertThat(ledger.ackedCount() + ledger.failedCount())
                    .as("every publish completed, acknowledged or failed: " + line)
                    .isEqualTo(ledger.publishedCount());
            assertThat(publishedBeforeFault).as("published before the fault: " + line).isPositive();
            assertThat(ackedBeforeFault.get()).as("acknowledged before the fault: " + line).isPositive();
            assertThat(publishedAfterRestore).as("published after the fault: " + line).isPositive();
            assertThat(ackedAfterRestore.get()).as("published after the fault and acknowledged: " + line).isPositive();
            assertThat(ledger.lostCount()).as(line).isZero();
            assertThat(line).contains(" lost=0 ");
        }
    }

    /**
     * Subscribes, publishes {@link #MESSAGES} keyed messages at {@link #RATE} per second, runs
     * {@code inject} once a third is published, {@code heal} {@code outage} later, and waits until
     * every publish completed and every acknowledged message was consumed (or {@link #SETTLE} passed).
     */
    private static Stream runStream(FaultLedger ledger, String bootstrap, Map<String, String> extra, Duration outage,
            Runnable inject, Runnable heal) throws Exception {
        Stream stream = new Stream(ledger);
        String topic = "fault-" + UUID.randomUUID().toString().substring(0, 8);
        // a thread of its own: the paced loop must not hold a worker of the small common pool
        ExecutorService publishingThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "fault-publisher"));
        try (Switchboard sb = switchboard(bootstrap, extra)) {
            sb.provisioning().ensureDestination(DestinationSpec.of(topic, PARTITIONS));
            try (Subscription subscription = sb.subscriber(topic, Codec.utf8()).group("g-" + topic)
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((message, context) -> ledger.consumed(message.payload()));
                    Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                            .build()) {
                subscription.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                // the producer fetches the topic's metadata on its first send
                awaitQuietly(() -> probe(publisher, topic, stream));
                CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> publishAll(publisher, stream),
                        publishingThread);

                await().atMost(SETTLE).until(() -> ledger.publishedCount() >= MESSAGES / 3 || publishing.isDone());
                stream.publishedBeforeFault = ledger.publishedCount();
                stream.faultStarted = true;
                inject.run();
                long publishedAtInjection = ledger.publishedCount();
                stream.faultInjected = true;
                pause(outage);
                stream.healing = true;
                stream.publishedDuringFault = ledger.publishedCount() - publishedAtInjection;
                stream.callHeldAtHeal = stream.callsInProgress.get() > 0;
                heal.run();
                long publishedAtRestore = ledger.publishedCount();
                stream.restored = true;

                publishing.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                stream.publishedAfterRestore = ledger.publishedCount() - publishedAtRestore;
                CircuitBreaker breaker = sb.circuitBreakers().getAllCircuitBreakers().stream().findFirst().orElse(null);
                if (breaker != null) {
                    // the breaker closes by itself once publishes succeed again; probe until it has
                    awaitQuietly(() -> probe(publisher, topic, stream) && breaker.getState() == CircuitBreaker.State.CLOSED);
                    stream.breakerStateAtEnd = breaker.getState();
                }
                awaitQuietly(() -> ledger.ackedCount() + ledger.failedCount() == ledger.publishedCount());
                awaitQuietly(ledger::nothingLost);
            }
        } finally {
            publishingThread.shutdownNow();
        }
        stream.print();
        return stream;
    }

    /** Publishes the stream, paced; each outcome goes to the ledger. Runs on its own thread. */
    private static void publishAll(Publisher<String> publisher, Stream stream) {
        long start = System.nanoTime();
        long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
        for (int i = 0; i < MESSAGES; i++) {
            publish(publisher, "k-" + (i % KEYS), "m-" + i, stream);
            LockSupport.parkNanos(start + (i + 1) * interval - System.nanoTime());
        }
    }

    private static CompletableFuture<?> publish(Publisher<String> publisher, String key, String payload, Stream stream) {
        FaultLedger ledger = stream.ledger;
        boolean beforeFault = !stream.faultStarted;
        boolean duringFault = stream.faultInjected && !stream.healing;
        boolean afterRestore = stream.restored;
        long started = System.nanoTime();
        return ledger.track(payload, () -> {
            long called = System.nanoTime();
            stream.callsInProgress.incrementAndGet();
            try {
                return publisher.publish(Message.of(key, payload));
            } finally {
                stream.callsInProgress.decrementAndGet();
                stream.longestCallNanos.accumulateAndGet(System.nanoTime() - called, Math::max);
            }
        }).whenComplete((receipt, error) -> {
            if (error == null) {
                if (beforeFault) {
                    stream.ackedBeforeFault.incrementAndGet();
                }
                if (duringFault && !stream.healing) {
                    stream.ackedDuringFault.incrementAndGet();
                    stream.quickestAckDuringFault.accumulateAndGet(System.nanoTime() - started, Math::min);
                }
                if (afterRestore) {
                    stream.ackedAfterRestore.incrementAndGet();
                }
            } else {
                stream.errors.add(error);
            }
        });
    }

    /** Publishes one more message after the stream and tells whether it was acknowledged within a few seconds. */
    private static boolean probe(Publisher<String> publisher, String topic, Stream stream) {
        String payload = "probe-" + topic + "-" + stream.ledger.publishedCount();
        try {
            publish(publisher, "k-probe", payload, stream).get(3, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits up to {@link #SETTLE} for the condition; the assertions afterwards say what was missing. */
    private static void awaitQuietly(BooleanSupplier condition) {
        try {
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            // asserted below, with the ledger's figures
        }
    }

    private static Switchboard switchboard(String bootstrap, Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("kafka.bootstrap.servers", bootstrap);
        // small client time-outs, so that a silent (half-open) connection is given up and reopened in bounded time
        properties.put("kafka.request.timeout.ms", "3000");
        properties.put("kafka.delivery.timeout.ms", "30000");
        properties.put("kafka.reconnect.backoff.max.ms", "500");
        properties.put("kafka.retry.backoff.max.ms", "500");
        properties.putAll(extra);
        return Switchboard.builder().broker("kafka").properties(properties).build();
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

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during the fault", e);
        }
    }
}
