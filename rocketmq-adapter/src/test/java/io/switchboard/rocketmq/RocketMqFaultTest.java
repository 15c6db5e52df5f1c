package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Faults survived, nothing lost: publishes a known keyed set at-least-once, restarts the broker
 * mid-stream, and prints (and asserts on) the ledger's figure line. Runs on a RocketMQ of its own,
 * not the shared one, since its broker goes away.
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

    /** Publishes payloads {@code from} .. {@code from + count - 1} in paced batches; returns the next index. */
    private static int publish(Publisher<String> publisher, FaultLedger ledger, List<CompletableFuture<?>> sent,
            Map<String, Integer> errors, int from, int count) throws InterruptedException {
        for (int i = from; i < from + count; i++) {
            if ((i - from) % BATCH == 0) {
                Thread.sleep(PACE.toMillis());
            }
            String payload = "p" + i;
            ledger.published(payload);
            CompletableFuture<?> f;
            try {
                f = publisher.publish(Message.of("k" + (i % KEYS), payload)).toCompletableFuture();
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            sent.add(f.whenComplete((receipt, error) -> {
                if (error == null) {
                    ledger.acked(payload);
                } else {
                    ledger.failed(payload);
                    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                    errors.merge(cause.getClass().getSimpleName() + ": " + cause.getMessage(), 1, Integer::sum);
                }
            }));
        }
        return from + count;
    }
}
