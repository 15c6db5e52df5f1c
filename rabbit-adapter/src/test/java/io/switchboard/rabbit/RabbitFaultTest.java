package io.switchboard.rabbit;

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
import io.switchboard.testkit.fault.ChildConsumer;
import io.switchboard.testkit.fault.FastBreaker;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.fault.TcpProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults survived, nothing lost: each test publishes a known keyed set at-least-once, injects a fault
 * mid-stream, and prints (and asserts on) the ledger's figure line.
 */
@Tag("fault")
@DisplayName("RabbitMQ faults")
class RabbitFaultTest extends RabbitTestSupport {

    private static final int MESSAGES = 2_400;
    private static final int KEYS = 30;
    /** Publishing is paced: a batch every {@link #PACE}, {@code MESSAGES / BATCH * PACE} in all (6 s). */
    private static final int BATCH = 20;
    private static final Duration PACE = Duration.ofMillis(50);
    /** The fault starts after this many publishes (about 2 s in). */
    private static final int FAULT_AT = 800;
    private static final Duration OUTAGE = Duration.ofSeconds(3);
    /** Added each way by the network-delay test. */
    private static final Duration LATENCY = Duration.ofMillis(300);
    private static final Duration SETTLE = Duration.ofSeconds(90);

    @Test
    @DisplayName("all connections closed by the server mid-stream lose nothing")
    void connectionsClosedMidStream() throws Exception {
        FaultLedger ledger = new FaultLedger("connections-closed", "rabbitmq");
        Switchboard sb = switchboard("rabbitmq.recovery-interval", "300ms");
        String destination = scratch.name("closed");
        int[] closed = new int[1];
        run(sb, destination, ledger, () -> closed[0] = SERVER.closeConnectionsNamed(connectionName()));
        assertThat(closed[0]).as("publishing and consuming connections closed").isEqualTo(2);
    }

    @Test
    @DisplayName("a network cut of a few seconds mid-stream loses nothing")
    void networkCutMidStream() throws Exception {
        FaultLedger ledger = new FaultLedger("network-cut", "rabbitmq");
        try (TcpProxy proxy = TcpProxy.start(SERVER.host(), SERVER.port())) {
            Switchboard sb = switchboard("rabbitmq.uri", viaProxy(proxy, ""), "rabbitmq.recovery-interval", "300ms");
            try {
                run(sb, scratch.name("cut"), ledger, () -> {
                    proxy.cut();
                    sleep(OUTAGE);
                    proxy.restore();
                });
            } finally {
                sb.close();
            }
        }
    }

    @Test
    @DisplayName("added latency of a few seconds mid-stream loses nothing and fails nothing: confirms only come later")
    void networkDelayMidStream() throws Exception {
        FaultLedger ledger = new FaultLedger("network-delay", "rabbitmq");
        DelayWindow window = new DelayWindow();
        try (TcpProxy proxy = TcpProxy.start(SERVER.host(), SERVER.port())) {
            Switchboard sb = switchboard("rabbitmq.uri", viaProxy(proxy, ""), "rabbitmq.recovery-interval", "300ms");
            try {
                run(sb, scratch.name("delay"), ledger, window, () -> {
                    proxy.delay(LATENCY);
                    window.on = true;
                    sleep(OUTAGE);
                    window.on = false;
                    proxy.delay(Duration.ZERO);
                });
            } finally {
                sb.close();
            }
        }
        System.out.println("  network-delay: " + window.acked + " publishes made and confirmed while delayed by "
                + LATENCY.toMillis() + " ms, quickest confirm "
                + TimeUnit.NANOSECONDS.toMillis(window.quickestAckNanos.get()) + " ms");
        assertThat(window.acked.get()).as("publishes made and confirmed while delayed: " + ledger.line()).isPositive();
        assertThat(Duration.ofNanos(window.quickestAckNanos.get()))
                .as("the quickest confirm of a delayed publish (the delay was real)").isGreaterThanOrEqualTo(LATENCY);
    }

    @Test
    @DisplayName("during a cut the circuit breaker opens and publishes fail fast; after it closes by itself, publishes succeed")
    void circuitBreakerDuringCut() throws Exception {
        FaultLedger ledger = new FaultLedger("circuit-breaker", "rabbitmq");
        try (TcpProxy proxy = TcpProxy.start(SERVER.host(), SERVER.port())) {
            // publishes held during the cut time out after 1 s: the breaker counts them and opens
            Map<String, String> properties = FastBreaker.properties();
            properties.put("rabbitmq.uri", viaProxy(proxy, ""));
            properties.put("rabbitmq.recovery-interval", "300ms");
            Switchboard sb = switchboard(properties.entrySet().stream()
                    .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toArray(String[]::new));
            String destination = scratch.name("breaker");
            Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g").concurrency(2)
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((m, c) -> ledger.consumed(m.payload()));
            join(subscription.ready());
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            List<CompletableFuture<?>> sent = publishPaced(publisher, ledger, MESSAGES, FAULT_AT, () -> {
                proxy.cut();
                sleep(OUTAGE);
                proxy.restore();
            }, null);
            CircuitBreaker breaker = sb.circuitBreakers().getAllCircuitBreakers().stream().findFirst().orElseThrow();
            // the breaker closes by itself once publishes succeed again; probe until it has
            AtomicInteger probes = new AtomicInteger();
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
                String payload = "probe" + probes.incrementAndGet();
                CompletableFuture<Object> probe = ledger.track(payload, () -> publisher.publish(Message.of("probe", payload)));
                sent.add(probe);
                probe.exceptionally(e -> null).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                return breaker.getState() == CircuitBreaker.State.CLOSED;
            });
            List<Throwable> errors = new ArrayList<>();
            for (CompletableFuture<?> f : sent) {
                f.handle((v, e) -> e).thenAccept(e -> {
                    if (e != null) {
                        errors.add(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                    }
                }).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            }
            settle(sent, ledger);
            long failedFast = errors.stream().filter(CircuitOpenException.class::isInstance).count();
            System.out.println("  circuit-breaker: " + errors.size() + " publishes failed, " + failedFast
                    + " of them fast with CircuitOpenException; " + probes.get() + " probes until the breaker closed");
            assertThat(failedFast).as("publishes failed fast while the breaker was open: " + ledger.line()).isPositive();
            assertThat(breaker.getState()).as("circuit breaker state after the restore").isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(subscription.isActive()).as("subscription survived").isTrue();
        }
    }

    @Test
    @DisplayName("a half-open connection of a few seconds mid-stream loses nothing")
    void halfOpenMidStream() throws Exception {
        FaultLedger ledger = new FaultLedger("half-open", "rabbitmq");
        try (TcpProxy proxy = TcpProxy.start(SERVER.host(), SERVER.port())) {
            // a 1 s heartbeat notices the silent peer in about 2 s; reconnections give up after 3 s
            Switchboard sb = switchboard("rabbitmq.uri", viaProxy(proxy, "?heartbeat=1&connection_timeout=3000"),
                    "rabbitmq.recovery-interval", "300ms");
            try {
                run(sb, scratch.name("half-open"), ledger, () -> {
                    proxy.halfOpen();
                    sleep(OUTAGE.plusSeconds(1));
                    proxy.restore();
                });
            } finally {
                sb.close();
            }
        }
    }

    @Test
    @DisplayName("a consumer killed with kill -9 mid-processing loses nothing: a new consumer gets the rest")
    void consumerKilledMidProcessing(@TempDir Path dir) throws Exception {
        FaultLedger ledger = new FaultLedger("consumer-killed", "rabbitmq");
        String destination = scratch.name("killed");
        ChildConsumer child = ChildConsumer.start("rabbitmq", Map.of("rabbitmq.uri", SERVER.uriWithCredentials(),
                "rabbitmq.connection-name", connectionName() + "-child"), destination, "g", dir.resolve("handled.txt"), 10);
        try {
            child.awaitReady(SETTLE);

            Switchboard sb = switchboard();
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            List<CompletableFuture<?>> sent = publishPaced(publisher, ledger, 2_000, -1, null, null);
            await().atMost(SETTLE).until(() -> child.handledPayloads().size() >= 600 || !child.isAlive());
            assertThat(child.isAlive()).as("child consumer still handling (output in " + child.logFile() + ")").isTrue();

            child.kill();
            List<String> handled = child.handledPayloads();
            handled.forEach(ledger::consumed);
            assertThat(handled.size()).as("killed mid-processing, not after").isLessThan(2_000);

            Subscription drain = sb.subscriber(destination, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((m, c) -> ledger.consumed(m.payload()));
            drain.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            settle(sent, ledger);
        } finally {
            child.kill();
        }
    }

    /** Publishes made and confirmed while a delay is on, and how quickly the quickest was confirmed. */
    private static final class DelayWindow {
        volatile boolean on;
        final AtomicInteger acked = new AtomicInteger();
        final AtomicLong quickestAckNanos = new AtomicLong(Long.MAX_VALUE);
    }

    /** Subscribes a group, publishes the set paced with the fault injected mid-stream, and checks the books. */
    private void run(Switchboard sb, String destination, FaultLedger ledger, Runnable fault) throws Exception {
        run(sb, destination, ledger, null, fault);
    }

    private void run(Switchboard sb, String destination, FaultLedger ledger, DelayWindow window, Runnable fault)
            throws Exception {
        Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g").concurrency(2)
                .delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, c) -> ledger.consumed(m.payload()));
        join(subscription.ready());
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
        List<CompletableFuture<?>> sent = publishPaced(publisher, ledger, MESSAGES, FAULT_AT, fault, window);
        settle(sent, ledger);
        assertThat(ledger.failedCount()).as("publishes are resent after recovery, none fails").isZero();
        assertThat(subscription.isActive()).as("subscription survived").isTrue();
    }

    /**
     * Publishes {@code count} keyed payloads in paced batches; at publish {@code faultAt} runs
     * {@code fault} on another thread (publishing goes on meanwhile) and waits for it at the end.
     * Publishes made and confirmed while {@code window} is on (if given) are timed.
     */
    private static List<CompletableFuture<?>> publishPaced(Publisher<String> publisher, FaultLedger ledger, int count,
            int faultAt, Runnable fault, DelayWindow window) throws Exception {
        List<CompletableFuture<?>> sent = new ArrayList<>(count);
        CompletableFuture<Void> faulting = CompletableFuture.completedFuture(null);
        for (int i = 0; i < count; i++) {
            if (i == faultAt) {
                faulting = CompletableFuture.runAsync(fault);
            }
            if (i > 0 && i % BATCH == 0) {
                sleep(PACE);
            }
            String payload = "p" + i;
            String key = "k" + (i % KEYS);
            boolean delayed = window != null && window.on;
            long started = System.nanoTime();
            CompletableFuture<Object> published = ledger.track(payload, () -> publisher.publish(Message.of(key, payload)));
            if (delayed) {
                published.thenRun(() -> {
                    // confirmed while still delayed: both the publish and its confirm went through the delay
                    if (window.on) {
                        window.acked.incrementAndGet();
                        window.quickestAckNanos.accumulateAndGet(System.nanoTime() - started, Math::min);
                    }
                });
            }
            sent.add(published);
        }
        faulting.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
        return sent;
    }

    /** Waits (bounded) for every publish to complete and every acked payload to be handled; prints and checks. */
    private static void settle(List<CompletableFuture<?>> sent, FaultLedger ledger) {
        try {
            CompletableFuture.allOf(sent.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture[]::new))
                    .get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(ledger::nothingLost);
        } catch (ConditionTimeoutException | java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException | InterruptedException e) {
            // reported through the figure line and the assertions below
        }
        String line = ledger.line();
        System.out.println(line);
        assertThat(line).matches("fault=\\S+ broker=rabbitmq published=\\d+ acked=\\d+ consumed=\\d+ unique=\\d+ "
                + "lost=\\d+ duplicates=\\d+");
        assertThat(sent).as("every publish completed").allMatch(CompletableFuture::isDone);
        assertThat(ledger.ackedCount() + ledger.failedCount()).as("acked + failed").isEqualTo(ledger.publishedCount());
        assertThat(ledger.ackedCount()).as("acked").isPositive();
        assertThat(ledger.lostCount()).as("lost: " + ledger).isZero();
    }

    private String viaProxy(TcpProxy proxy, String query) {
        return "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/" + query;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
