package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Network faults between the clients and the broker, nothing lost: each test publishes a known
 * keyed set at-least-once, cuts, delays or stalls (half-open) every client connection to the
 * broker mid-stream through the {@link TcpProxy} the broker registers as its address
 * ({@link EmbeddedRocketMq#startBehindProxy()}), heals it, and prints (and asserts on) the ledger's
 * figure line. The name server stays reachable throughout. One RocketMQ for the three tests, a
 * topic and group each.
 */
@Tag("fault")
@DisplayName("RocketMQ through network faults")
class RocketMqNetworkFaultTest {

    private static final int MESSAGES = 1_500;
    private static final int KEYS = 30;
    /** Publishing is paced: a batch every {@link #PACE}, about 7.5 s in all. */
    private static final int BATCH = 10;
    private static final Duration PACE = Duration.ofMillis(50);
    /** The fault starts after this many publishes (about 2.5 s in). */
    private static final int FAULT_AT = 500;
    private static final Duration OUTAGE = Duration.ofSeconds(3);
    /** Longer than the send timeout below, so that sends in flight on the silent connections time out. */
    private static final Duration HALF_OPEN = Duration.ofSeconds(5);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration LATENCY = Duration.ofMillis(300);
    private static final Duration SETTLE = Duration.ofSeconds(60);

    private static EmbeddedRocketMq rocketMq;
    private static TcpProxy proxy;

    @BeforeAll
    static void startBroker() {
        rocketMq = EmbeddedRocketMq.startBehindProxy();
        proxy = rocketMq.brokerProxy();
        assertThat(rocketMq.brokerAddress()).as("the address clients get from the name server is the proxy's")
                .isEqualTo("127.0.0.1:" + proxy.port());
    }

    @AfterAll
    static void stopBroker() {
        if (rocketMq != null) {
            rocketMq.close();
        }
    }

    @AfterEach
    void healProxy() {
        if (proxy != null) {
            proxy.restore();
            proxy.delay(Duration.ZERO);
        }
    }

    @Test
    @DisplayName("a network cut of a few seconds mid-stream loses nothing: sends during the cut fail clearly, later ones succeed")
    void networkCut() throws Exception {
        Stream stream = run(new FaultLedger("network-cut", "rocketmq"), proxy::cut, OUTAGE, proxy::restore);

        stream.assertStopped();
        stream.assertSurvived();
    }

    @Test
    @DisplayName("added latency mid-stream loses nothing and fails nothing: acknowledgements only come later")
    void networkDelay() throws Exception {
        Stream stream = run(new FaultLedger("network-delay", "rocketmq"), () -> proxy.delay(LATENCY), OUTAGE,
                () -> proxy.delay(Duration.ZERO));

        assertThat(stream.ackedDuringFault.get()).as("publishes acknowledged while delayed: " + stream.ledger.line())
                .isPositive();
        assertThat(Duration.ofNanos(stream.quickestAckDuringFault.get()))
                .as("the quickest acknowledgement of a delayed publish (the delay was real)")
                .isGreaterThanOrEqualTo(LATENCY);
        assertThat(stream.ledger.failedCount()).as("failed publishes (the delay is 10x below the send timeout): "
                + stream.errors).isZero();
        stream.assertSurvived();
    }

    @Test
    @DisplayName("a half-open connection (bytes stop, sockets stay open) mid-stream loses nothing")
    void halfOpen() throws Exception {
        Stream stream = run(new FaultLedger("half-open", "rocketmq"), proxy::halfOpen, HALF_OPEN, proxy::restore);

        stream.assertStopped();
        stream.assertSurvived();
    }

    /** What one stream did: the ledger, and the figures taken around the fault. */
    private static final class Stream {

        final FaultLedger ledger;
        final Map<String, Integer> errors = new ConcurrentHashMap<>();
        final AtomicInteger ackedBeforeFault = new AtomicInteger();
        final AtomicInteger ackedDuringFault = new AtomicInteger();
        final AtomicInteger ackedAfterHeal = new AtomicInteger();
        final AtomicLong quickestAckDuringFault = new AtomicLong(Long.MAX_VALUE);
        final AtomicInteger callsInProgress = new AtomicInteger();
        volatile boolean faultStarted;
        volatile boolean faultInjected;
        volatile boolean healing;
        volatile boolean healed;
        final AtomicInteger publishedDuringFault = new AtomicInteger();
        volatile boolean callHeldAtHeal;
        boolean subscriptionActive;

        Stream(FaultLedger ledger) {
            this.ledger = ledger;
        }

        /** The fault stopped the traffic: no publish made during it was acknowledged before it ended. */
        void assertStopped() {
            String line = ledger.line();
            assertThat(publishedDuringFault.get() > 0 || callHeldAtHeal)
                    .as("publish calls made during the fault, or one held up until its end: " + line).isTrue();
            assertThat(ackedDuringFault.get())
                    .as("publishes made during the fault and acknowledged before it ended (the fault must be real): "
                            + line).isZero();
        }

        void assertSurvived() {
            String line = ledger.line();
            assertThat(line).matches("fault=\\S+ broker=rocketmq published=\\d+ acked=\\d+ consumed=\\d+ unique=\\d+ "
                    + "lost=\\d+ duplicates=\\d+");
            assertThat(ledger.publishedCount()).as(line).isGreaterThanOrEqualTo(MESSAGES);
            assertThat(ledger.ackedCount() + ledger.failedCount())
                    .as("every publish completed, acknowledged or failed: " + line).isEqualTo(ledger.publishedCount());
            assertThat(ackedBeforeFault.get()).as("acknowledged before the fault: " + line).isPositive();
            assertThat(ackedAfterHeal.get()).as("published after the fault and acknowledged: " + line).isPositive();
            assertThat(ledger.lostCount()).as(line).isZero();
            assertThat(line).contains(" lost=0 ");
            assertThat(subscriptionActive).as("subscription survived").isTrue();
            assertThat(errors.keySet()).as("failed publishes say why, as a connection failure or a time-out")
                    .allSatisfy(e -> assertThat(e).doesNotEndWith(": null").doesNotContain("refused")
                            .doesNotContain("unknown reason").containsAnyOf("connection to", "no answer from"));
        }
    }

    /**
     * Subscribes a group, publishes {@link #MESSAGES} keyed payloads paced, runs {@code inject} at
     * publish {@link #FAULT_AT} (on another thread; publishing goes on), {@code heal} {@code outage}
     * later, and waits until every publish completed and every acknowledged payload was consumed (or
     * {@link #SETTLE} passed). Prints the figure line and what happened around the fault.
     */
    private static Stream run(FaultLedger ledger, Runnable inject, Duration outage, Runnable heal) throws Exception {
        Stream stream = new Stream(ledger);
        String destination = "net-" + UUID.randomUUID().toString().substring(0, 8);
        try (Switchboard sb = Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                .property("rocketmq.send-timeout", SEND_TIMEOUT.toMillis() + "ms")
                .build()) {
            sb.provisioning().ensureDestination(DestinationSpec.of(destination, 4));
            Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g")
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((m, c) -> ledger.consumed(m.payload()));
            subscription.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                    .build();

            List<CompletableFuture<?>> sent = new ArrayList<>(MESSAGES);
            CompletableFuture<Void> faulting = CompletableFuture.completedFuture(null);
            for (int i = 0; i < MESSAGES; i++) {
                if (i == FAULT_AT) {
                    faulting = CompletableFuture.runAsync(() -> {
                        stream.faultStarted = true;
                        inject.run();
                        stream.faultInjected = true;
                        pause(outage);
                        stream.healing = true;
                        stream.callHeldAtHeal = stream.callsInProgress.get() > 0;
                        heal.run();
                        stream.healed = true;
                    });
                }
                if (i > 0 && i % BATCH == 0) {
                    pause(PACE);
                }
                sent.add(publish(publisher, "k" + (i % KEYS), "p" + i, stream));
            }
            faulting.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            try {
                CompletableFuture.allOf(sent.stream().map(f -> f.exceptionally(e -> null))
                        .toArray(CompletableFuture[]::new)).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(ledger::nothingLost);
            } catch (ConditionTimeoutException | ExecutionException | TimeoutException e) {
                // reported through the figure line and the assertions
            }
            stream.subscriptionActive = subscription.isActive();
            System.out.println(ledger.line());
            System.out.println("  " + ledger.failedCount() + " failed publishes, " + stream.publishedDuringFault
                    + " publish calls during the fault" + (stream.callHeldAtHeal ? " (one held up at its end)" : "")
                    + ", " + stream.ackedDuringFault + " of them acknowledged during it"
                    + (stream.ackedDuringFault.get() > 0 ? " (the quickest in "
                            + TimeUnit.NANOSECONDS.toMillis(stream.quickestAckDuringFault.get()) + " ms)" : "")
                    + "; first reasons: "
                    + stream.errors.entrySet().stream().limit(3).toList());
            assertThat(sent).as("every publish completed or failed, none hangs").allMatch(CompletableFuture::isDone);
        }
        return stream;
    }

    /** Publishes one payload; its outcome goes to the ledger and to the figures around the fault. */
    private static CompletableFuture<?> publish(Publisher<String> publisher, String key, String payload, Stream stream) {
        boolean beforeFault = !stream.faultStarted;
        boolean duringFault = stream.faultInjected && !stream.healing;
        boolean afterHeal = stream.healed;
        if (duringFault) {
            stream.publishedDuringFault.incrementAndGet();
        }
        long called = System.nanoTime();
        return stream.ledger.track(payload, () -> {
            stream.callsInProgress.incrementAndGet();
            try {
                return publisher.publish(Message.of(key, payload));
            } finally {
                stream.callsInProgress.decrementAndGet();
            }
        }).whenComplete((receipt, error) -> {
            if (error != null) {
                stream.errors.merge(error.getClass().getSimpleName() + ": " + error.getMessage(), 1, Integer::sum);
                return;
            }
            if (beforeFault) {
                stream.ackedBeforeFault.incrementAndGet();
            }
            if (duringFault && !stream.healing) {
                stream.ackedDuringFault.incrementAndGet();
                stream.quickestAckDuringFault.accumulateAndGet(System.nanoTime() - called, Math::min);
            }
            if (afterHeal) {
                stream.ackedAfterHeal.incrementAndGet();
            }
        });
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while pacing or during the fault", e);
        }
    }
}
