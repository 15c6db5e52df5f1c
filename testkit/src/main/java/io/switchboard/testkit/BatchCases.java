package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.BatchHandler;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract's "Batch handlers" cases ({@link SubscriberBuilder#subscribeBatch}): batches form within their bounds
 * and each message is acknowledged once, one failed message is retried alone and dead-lettered while its batch-mates
 * are acknowledged, a whole batch that fails is retried, and at-most-once does not retry; {@link BrokerContract} runs
 * them as a nested group. Each case has two minutes at most.
 */
@Timeout(120)
abstract class BatchCases extends ContractCases {

    private static final RetryPolicy THREE = RetryPolicy.fixed(3, Duration.ofMillis(20));

    BatchCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("300 messages arrive in batches of at most 50, more than one message at a time, each acknowledged once")
    void batchesWithinBounds() {
        String dest = destination();
        List<Integer> sizes = new ArrayList<>();
        Queue<String> handled = new ConcurrentLinkedQueue<>();
        subscribeBatch(dest, b -> b.group("g").batchSize(50).batchWait(Duration.ofMillis(200)).maxInFlight(200), batch -> {
            synchronized (sizes) {
                sizes.add(batch.size());
            }
            batch.messages().forEach(m -> handled.add(m.payload()));
        });
        publishAll(dest, 300, i -> "p" + i);
        await().atMost(timeout()).until(() -> handled.size() >= 300);
        // nothing may come again: there is no event to await for a redelivery that must not happen
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 300);
        assertThat(Set.copyOf(handled)).hasSize(300);
        synchronized (sizes) {
            assertThat(sizes).as("batch sizes").allSatisfy(n -> assertThat(n).isBetween(1, 50));
            assertThat(sizes.stream().mapToInt(Integer::intValue).max().orElse(0)).as("the largest batch").isGreaterThan(1);
        }
    }

    @Test
    @DisplayName("one failed message is retried alone, then dead-lettered with its attempts, while its batch-mates are acknowledged once")
    void oneFailedMessageDeadLettered() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        // tag::batch-handler[]
        subscribeBatch(dest, b -> b.group("g").retry(THREE)
                .batchSize(20)                              // at most 20 messages a call
                .batchWait(Duration.ofMillis(200)), batch -> {   // waiting at most 200 ms for them
            for (int i = 0; i < batch.size(); i++) {
                String payload = batch.messages().get(i).payload();
                seen.merge(payload, 1, Integer::sum);
                if (payload.equals("poison")) {
                    batch.fail(i, new IllegalStateException("poison record"));   // the others succeed
                }
            }
        });
        // end::batch-handler[]
        publishAll(dest, 10, i -> i == 4 ? "poison" : "ok" + i);
        Message<String> deadLetter = dead.awaitCount(1).received().get(0).message();
        assertThat(deadLetter.payload()).isEqualTo("poison");
        assertThat(deadLetter.headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed")
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3")
                .containsEntry(Envelope.ERROR_TYPE, IllegalStateException.class.getName());
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 10);
        assertThat(seen).containsEntry("poison", 3);
        seen.forEach((payload, times) -> {
            if (!payload.equals("poison")) {
                assertThat(times).as("times %s was handled", payload).isEqualTo(1);
            }
        });
        assertThat(dead.received()).hasSize(1);
    }

    @Test
    @DisplayName("a batch whose handler throws is retried: every message comes again with the next attempt, and none is dead-lettered")
    void wholeBatchRetried() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        AtomicBoolean failedOnce = new AtomicBoolean();
        Map<String, Integer> lastAttempt = new ConcurrentHashMap<>();
        subscribeBatch(dest, b -> b.group("g").retry(THREE).batchSize(20).batchWait(Duration.ofMillis(200)), batch -> {
            if (failedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("the database is briefly away");
            }
            for (int i = 0; i < batch.size(); i++) {
                lastAttempt.put(batch.messages().get(i).payload(), batch.context(i).attempt());
            }
        });
        publishAll(dest, 10, i -> "m" + i);
        await().atMost(timeout()).until(() -> lastAttempt.size() == 10);
        assertThat(lastAttempt.values()).as("attempts").contains(2).allSatisfy(a -> assertThat(a).isBetween(1, 2));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> dead.received().isEmpty());
    }

    @Test
    @DisplayName("at-most-once: a failed message is not retried, and the batch's others are handled once")
    void atMostOnceNotRetried() {
        String dest = destination();
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        subscribeBatch(dest, b -> b.group("g").delivery(Delivery.AT_MOST_ONCE).retry(THREE), batch -> {
            for (int i = 0; i < batch.size(); i++) {
                String payload = batch.messages().get(i).payload();
                seen.merge(payload, 1, Integer::sum);
                if (payload.equals("fails")) {
                    batch.fail(i, new IllegalStateException("lost on purpose"));
                }
            }
        });
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_MOST_ONCE);
        join(pub.publish(keyed("k", "fails")));
        join(pub.publish(keyed("k", "after")));
        await().atMost(timeout()).until(() -> seen.containsKey("after"));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> seen.get("fails") == 1);
        assertThat(seen).containsEntry("fails", 1).containsEntry("after", 1);
    }

    @Test
    @DisplayName("4 handler threads with room for 8 in flight: each key's messages in order, each message once")
    void perKeyOrderWithLittleRoom() {
        String dest = destination();
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        Queue<String> handled = new ConcurrentLinkedQueue<>();
        subscribeBatch(dest, b -> b.group("g").concurrency(4).maxInFlight(8).batchSize(5).batchWait(Duration.ofMillis(100)),
                batch -> {
                    for (Message<String> m : batch.messages()) {
                        String[] parts = m.payload().split(":");
                        byKey.computeIfAbsent(parts[0], k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                .add(Integer.parseInt(parts[1]));
                        handled.add(m.payload());
                    }
                });
        publishAll(dest, 400, i -> "k-" + i % 8 + ":" + i);
        await().atMost(timeout()).until(() -> handled.size() >= 400);
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 400);
        assertThat(Set.copyOf(handled)).hasSize(400);
        assertThat(byKey).hasSize(8);
        byKey.forEach((key, seq) -> {
            synchronized (seq) {
                assertThat(seq).as("order of key " + key).isSorted().hasSize(50);
            }
        });
    }

    /** Publishes {@code n} keyed messages at once (eight keys) and waits for every acknowledgement. */
    private void publishAll(String destination, int n, java.util.function.IntFunction<String> payload) {
        Publisher<String> pub = publisher(destination, TEXT, Delivery.AT_LEAST_ONCE);
        List<Message<String>> messages = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            messages.add(keyed("k-" + i % 8, payload.apply(i)));
        }
        join(pub.publishAll(messages));
    }

    /** Subscribes a batch handler of text messages and waits until ready. */
    private Subscription subscribeBatch(String destination, UnaryOperator<SubscriberBuilder<String>> settings,
            BatchHandler<String> handler) {
        Subscription subscription = settings.apply(switchboard().subscriber(destination, TEXT)).subscribeBatch(handler);
        join(subscription.ready());
        return subscription;
    }
}
