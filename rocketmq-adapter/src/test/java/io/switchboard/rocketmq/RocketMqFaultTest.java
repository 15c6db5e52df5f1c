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
import io.switchboard.testkit.fault.ChildConsumer;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults survived, nothing lost: publishes a known keyed set at-least-once, restarts the broker
 * mid-stream or kills a consumer JVM mid-processing, and prints (and asserts on) the ledger's figure
 * line. The broker restart runs on a RocketMQ of its own, not the shared one, since its broker goes
 * away; the consumer kill on the shared one.
 */
@Tag("fault")
@DisplayName("RocketMQ faults")
class RocketMqFaultTest {

    private static final int KEYS = 30;
    private static final int BATCH = 10;
    private static final Duration PACE = Duration.ofMillis(50);
    /** Publishes before the restart, and after it. */
    private static final int BEFORE = 600;
    private static final int AFTER = 600;
    /** At most this many publishes while the broker restarts (paced, so about 10 s' worth). */
    private static final int DURING_AT_MOST = 2_000;
    private static final Duration SETTLE = Duration.ofSeconds(90);
    /** The consumer-killed test: messages published, and how many the child handles before it is killed. */
    private static final int KILLED_MESSAGES = 2_000;
    private static final int KILL_AFTER = 300;

    @Test
    @DisplayName("a broker restarted on its store mid-stream loses nothing: sends in flight complete or fail clearly")
    void brokerRestartMidStream() throws Exception {
        FaultLedger ledger = new FaultLedger("broker-restart", "rocketmq");
        try (EmbeddedRocketMq rocketMq = EmbeddedRocketMq.start();
                Switchboard sb = Switchboard.builder().broker("rocketmq")
                        .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                        .build()) {
            String destination = "fault-restart";
            Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g")
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((m, c) -> ledger.consumed(m.payload()));
            subscription.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();

            List<CompletableFuture<?>> sent = new ArrayList<>();
            Map<String, Integer> errors = new ConcurrentHashMap<>();
            int next = publish(publisher, ledger, sent, errors, 0, BEFORE);
            await().atMost(SETTLE).until(() -> ledger.uniqueCount() >= BEFORE / 2);
            CompletableFuture<Void> restart = CompletableFuture.runAsync(rocketMq::restartBroker);
            int duringFrom = next;
            while (!restart.isDone() && next - duringFrom < DURING_AT_MOST) {
                next = publish(publisher, ledger, sent, errors, next, BATCH);
            }
            restart.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            int afterFrom = next;
            next = publish(publisher, ledger, sent, errors, next, AFTER);

            try {
                CompletableFuture.allOf(sent.stream().map(f -> f.exceptionally(e -> null))
                        .toArray(CompletableFuture[]::new)).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(ledger::nothingLost);
            } catch (ConditionTimeoutException | ExecutionException | TimeoutException e) {
                // reported through the figure line and the assertions below
            }
            String line = ledger.line();
            System.out.println(line);
            assertThat(line).matches("fault=broker-restart broker=rocketmq published=\\d+ acked=\\d+ consumed=\\d+ "
                    + "unique=\\d+ lost=\\d+ duplicates=\\d+");
            assertThat(sent).as("every publish completed or failed, none hangs").allMatch(CompletableFuture::isDone);
            assertThat(ledger.ackedCount() + ledger.failedCount()).as("acked + failed").isEqualTo(ledger.publishedCount());
            assertThat(ledger.ackedCount()).as("acked after the restart too").isGreaterThan(BEFORE);
            assertThat(ledger.lostCount()).as("lost: " + ledger).isZero();
            assertThat(subscription.isActive()).as("subscription survived").isTrue();
            System.out.println("broker-restart: " + (afterFrom - duringFrom) + " publishes during the restart, "
                    + ledger.failedCount() + " failed, first reasons: " + errors.entrySet().stream().limit(5).toList());
            assertThat(errors.keySet()).as("failed publishes say why").allSatisfy(e -> assertThat(e).doesNotEndWith(": null"));
        }
    }

    @Test
    @DisplayName("a consumer killed with kill -9 mid-processing loses nothing: another member of its group gets the rest")
    void consumerKilledMidProcessing(@TempDir Path dir) throws Exception {
        FaultLedger ledger = new FaultLedger("consumer-killed", "rocketmq");
        // consumed concurrently: an orderly consumer's queues stay locked on the broker for the killed client until
        // the lock expires (the broker's rocketmq.broker.rebalance.lockMaxLiveTime, 60 s), while a concurrent
        // consumer takes them over as soon as the broker sees the killed client's connections close
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("rocketmq.consume-mode", "concurrently");
        // the broker stays up: the shared one will do (a dedicated one takes 10-15 s to stop)
        EmbeddedRocketMq rocketMq = EmbeddedRocketMq.shared();
        try (Switchboard sb = Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                .properties(properties)
                .build()) {
            String destination = "fault-killed-" + UUID.randomUUID().toString().substring(0, 8);
            sb.provisioning().ensureDestination(DestinationSpec.of(destination, 4));
            properties.put("rocketmq.namesrv-addr", rocketMq.nameServerAddress());
            ChildConsumer child = ChildConsumer.start("rocketmq", properties, destination, "g",
                    dir.resolve("handled.txt"), 10);
            try {
                child.awaitReady(SETTLE);
                Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                        .build();
                List<CompletableFuture<?>> sent = new ArrayList<>();
                Map<String, Integer> errors = new ConcurrentHashMap<>();
                for (int i = 0; i < KILLED_MESSAGES; i++) {
                    sent.add(publishOne(publisher, ledger, errors, "k" + (i % KEYS), "p" + i));
                }
                await().atMost(SETTLE).until(() -> child.handledPayloads().size() >= KILL_AFTER || !child.isAlive());
                assertThat(child.isAlive()).as("child consumer still handling (output in " + child.logFile() + ")")
                        .isTrue();

                child.kill();
                List<String> handled = child.handledPayloads();
                handled.forEach(ledger::consumed);
                assertThat(handled.size()).as("handled by the child before the kill").isGreaterThanOrEqualTo(KILL_AFTER);
                assertThat(handled.size()).as("killed mid-processing, not after").isLessThan(KILLED_MESSAGES);

                Subscription successor = sb.subscriber(destination, Codec.utf8()).group("g")
                        .delivery(Delivery.AT_LEAST_ONCE)
                        .subscribe((m, c) -> ledger.consumed(m.payload()));
                try {
                    CompletableFuture.allOf(sent.stream().map(f -> f.exceptionally(e -> null))
                            .toArray(CompletableFuture[]::new)).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                    await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(ledger::nothingLost);
                } catch (ConditionTimeoutException | ExecutionException | TimeoutException e) {
                    // reported through the figure line and the assertions below
                } finally {
                    successor.close();
                }
                String line = ledger.line();
                System.out.println(line);
                System.out.println("consumer-killed: the child handled " + handled.size() + " before the kill");
                assertThat(sent).as("every publish completed").allMatch(CompletableFuture::isDone);
                assertThat(ledger.ackedCount()).as("acked: " + ledger + ", errors " + errors).isEqualTo(KILLED_MESSAGES);
                assertThat(ledger.lostCount()).as("lost: " + ledger).isZero();
                assertThat(line).contains(" lost=0 ");
            } finally {
                child.kill();
            }
        }
    }

    /** Publishes one payload, unpaced; the outcome goes to the ledger. */
    private static CompletableFuture<?> publishOne(Publisher<String> publisher, FaultLedger ledger,
            Map<String, Integer> errors, String key, String payload) {
        ledger.published(payload);
        CompletableFuture<?> f;
        try {
            f = publisher.publish(Message.of(key, payload)).toCompletableFuture();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return f.whenComplete((receipt, error) -> {
            if (error == null) {
                ledger.acked(payload);
            } else {
                ledger.failed(payload);
                errors.merge(error.toString(), 1, Integer::sum);
            }
        });
    }

    /** Publishes payloads {@code from} .. {@code from + count - 1} in paced batches; returns the next index. */
    private static int publish(Publisher<String> publisher, FaultLedger ledger, List<CompletableFuture<?>> sent,
            Map<String, Integer> errors, int from, int count) throws InterruptedException {
        for (int i = from; i < from + count; i++) {
            if ((i - from) % BATCH == 0) {
                Thread.sleep(PACE.toMillis());
            }
            String payload = "p" + i;
            String key = "k" + (i % KEYS);
            sent.add(ledger.track(payload, () -> publisher.publish(Message.of(key, payload))).whenComplete((receipt, error) -> {
                if (error != null) {
                    errors.merge(error.getClass().getSimpleName() + ": " + error.getMessage(), 1, Integer::sum);
                }
            }));
        }
        return from + count;
    }
}
