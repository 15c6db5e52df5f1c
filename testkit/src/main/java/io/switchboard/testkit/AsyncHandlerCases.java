package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.AsyncMessageHandler;
import io.switchboard.Delivery;
import io.switchboard.DeliveryContext;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract's "Asynchronous handlers" cases ({@link SubscriberBuilder#subscribeAsync}): a stage completed later on
 * another executor acknowledges, an exceptional or missing stage fails the attempt, per-key order holds however the
 * executor reorders completions, and a stage that never completes times out; {@link BrokerContract} runs them as a
 * nested group. Each case has two minutes at most (the class's {@link Timeout}, inherited by the nested group).
 */
@Timeout(120)
abstract class AsyncHandlerCases extends ContractCases {

    private static final RetryPolicy THREE = RetryPolicy.fixed(3, Duration.ofMillis(20));

    /** The executor the handlers hand their work to, as an application's would be. */
    private ScheduledExecutorService pool;

    AsyncHandlerCases(ContractSupport contract) {
        super(contract);
    }

    @BeforeEach
    void startPool() {
        pool = Executors.newScheduledThreadPool(4);
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).as("the test's executor ended").isTrue();
    }

    @Test
    @DisplayName("a stage completed later on another executor acknowledges: each message is handled once, none redelivered")
    void completedLaterAcknowledges() {
        String dest = destination();
        Queue<String> attempts = new ConcurrentLinkedQueue<>();
        Queue<String> done = new ConcurrentLinkedQueue<>();
        subscribeAsync(dest, b -> b.group("g").concurrency(4), (m, c) -> {
            attempts.add(m.id());
            return later(randomMillis(5, 40), () -> {
                done.add(m.payload());
                return null;
            });
        });
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        int n = 20;
        for (int i = 0; i < n; i++) {
            join(pub.publish(keyed("k-" + i % 4, "p" + i)));
        }
        await().atMost(timeout()).until(() -> done.size() >= n);
        // a short grace in which nothing may arrive: an unacknowledged message would come again, and there is no
        // event to await for something that must not happen
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> attempts.size() == n);
        assertThat(Set.copyOf(attempts)).as("distinct ids handled").hasSize(n);
        assertThat(done).hasSize(n);
    }

    @Test
    @DisplayName("an exceptionally completed stage is retried, then dead-lettered with reason handler-failed")
    void exceptionalStageRetriedThenDeadLettered() {
        // runAsync wraps the failure in a CompletionException: the dead letter names the failure itself
        Failed failed = failOne(THREE, "doomed", () -> CompletableFuture.runAsync(() -> {
            throw new IllegalStateException("stock service unavailable");
        }, pool));
        assertDeadLettered(failed.deadLetter(), "handler-failed", 3, IllegalStateException.class);
        assertThat(failed.deadLetter().headers()).containsEntry(Envelope.ERROR_MESSAGE, "stock service unavailable");
        assertThat(failed.attempts()).containsExactly("doomed", "doomed", "doomed");
    }

    @Test
    @DisplayName("a stage completed with a non-retryable exception is dead-lettered at once with reason non-retryable")
    void nonRetryableStageDeadLetteredAtOnce() {
        Failed failed = failOne(THREE.notRetrying(IllegalArgumentException.class), "invalid", () -> later(10, () -> {
            throw new IllegalArgumentException("order has no lines");
        }));
        assertDeadLettered(failed.deadLetter(), "non-retryable", 1, IllegalArgumentException.class);
        assertThat(failed.attempts()).containsExactly("invalid");
    }

    @Test
    @DisplayName("keeps per-key order when the executor completes stages out of order: a key's next message waits for its stage")
    void perKeyOrderWithReorderedCompletions() {
        assumeTrue(capabilities().orderingPerKey(), "broker '" + brokerId() + "' does not declare ordering per key");
        String dest = destination();
        int keys = 6;
        int perKey = 15;
        Map<String, Integer> completed = new ConcurrentHashMap<>();
        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicInteger stages = new AtomicInteger();
        subscribeAsync(dest, b -> b.group("g").concurrency(4), (m, c) -> {
            String[] parts = m.payload().split(":");
            String key = parts[0];
            int i = Integer.parseInt(parts[1]);
            int before = completed.getOrDefault(key, -1);
            if (before != i - 1) {
                violations.add(key + ": message " + i + " handed over while the stage of message " + before
                        + " was the last completed");
            }
            seen.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
            // random delays: the pool completes the stages of different messages in another order than it got them
            return later(randomMillis(0, 25), () -> {
                completed.put(key, i); // before the stage completes, so the next message of the key must see it
                stages.incrementAndGet();
                return null;
            });
        });
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            for (int k = 0; k < keys; k++) {
                sent.add(pub.publish(keyed("key-" + k, "key-" + k + ":" + i)).toCompletableFuture());
            }
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        await().atMost(timeout()).until(() -> stages.get() >= keys * perKey);
        assertThat(violations).isEmpty();
        assertThat(stages.get()).as("stages completed, one a message").isEqualTo(keys * perKey);
        assertThat(seen).hasSize(keys);
        seen.values().forEach(order -> assertThat(order).isSorted().hasSize(perKey).doesNotHaveDuplicates());
    }

    @Test
    @DisplayName("a stage that never completes fails the attempt after handlerTimeout, is retried and dead-lettered, and the key moves on")
    void neverCompletingStageTimesOut() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Run run = subscribeRecording(dest, b -> b.group("g").retry(RetryPolicy.fixed(2, Duration.ofMillis(20)))
                .handlerTimeout(Duration.ofMillis(300)), (m, c) -> m.payload().equals("lost")
                        ? new CompletableFuture<Void>() // its completion is lost: nothing ever completes it
                        : null);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        String lostId = join(pub.publish(keyed("k", "lost"))).messageId();
        join(pub.publish(keyed("k", "next")));
        Message<String> dl = dead.awaitCount(1).received().get(0).message();
        assertThat(dl.payload()).isEqualTo("lost");
        assertDeadLettered(dl, "handler-failed", 2, TimeoutException.class);
        assertThat(dl.headers().get(Envelope.ERROR_MESSAGE)).contains(dest, "'g'", lostId, "handlerTimeout", "PT0.3S");
        run.awaitDone("next");
        assertThat(run.attempts()).containsExactly("lost", "lost", "next");
    }

    @Test
    @DisplayName("a null stage fails the attempt with an error saying what to return")
    void nullStageFails() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        subscribeAsync(dest, b -> b.group("g").retry(RetryPolicy.NONE), (m, c) -> null);
        String id = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("nothing")).messageId();
        Message<String> dl = dead.awaitCount(1).received().get(0).message();
        assertDeadLettered(dl, "handler-failed", 1, IllegalStateException.class);
        assertThat(dl.headers().get(Envelope.ERROR_MESSAGE)).contains(dest, id, "returned null",
                "CompletableFuture.completedFuture(null)");
    }

    @Test
    @DisplayName("exactly-once: the id counts as handled when its stage completed, not before; a failed stage lets a retry handle it")
    void exactlyOnceCountsTheCompletion() {
        String dest = destination();
        Run run = subscribeRecording(dest, b -> b.group("g").delivery(Delivery.EXACTLY_ONCE).retry(THREE), (m, c) ->
                c.attempt() == 1 && m.payload().equals("retry-me")
                        ? CompletableFuture.failedFuture(new IllegalStateException("first attempt fails")) : null);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.EXACTLY_ONCE);
        Message<String> m = Message.builder("retry-me").key("k").id("eo-async-1").build();
        join(pub.publish(m));
        join(pub.publish(m));
        join(pub.publish(Message.builder("marker").key("k").id("eo-async-marker").build()));
        run.awaitDone("marker");
        assertThat(run.done()).containsExactly("retry-me", "marker");
        assertThat(run.attempts()).containsExactly("retry-me", "retry-me", "marker");
    }

    @Test
    @DisplayName("at-most-once: a failed stage is not retried and the next message follows")
    void atMostOnceNotRetried() {
        String dest = destination();
        Run run = subscribeRecording(dest, b -> b.group("g").delivery(Delivery.AT_MOST_ONCE).retry(THREE), (m, c) ->
                m.payload().equals("fails") ? CompletableFuture.supplyAsync(() -> {
                    throw new IllegalStateException("lost on purpose");
                }, pool) : null);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_MOST_ONCE);
        join(pub.publish(keyed("k", "fails")));
        join(pub.publish(keyed("k", "after")));
        run.awaitDone("after");
        assertThat(run.attempts()).containsExactly("fails", "after");
    }

    private record Failed(Message<String> deadLetter, Queue<String> attempts) {}

    /** Publishes {@code payload} to a handler whose every stage is {@code stage}'s, and waits for its dead letter. */
    private Failed failOne(RetryPolicy policy, String payload, Supplier<CompletionStage<?>> stage) {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Run run = subscribeRecording(dest, b -> b.group("g").retry(policy), (m, c) -> stage.get());
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(keyed("k", payload)));
        Message<String> deadLetter = dead.awaitCount(1).received().get(0).message();
        assertThat(deadLetter.payload()).isEqualTo(payload);
        return new Failed(deadLetter, run.attempts());
    }

    /** Checks a dead letter's reason, attempts, group ({@code g}) and error type. */
    private static void assertDeadLettered(Message<String> deadLetter, String reason, int attempts, Class<?> error) {
        assertThat(deadLetter.headers())
                .containsEntry(Envelope.DEAD_LETTER_REASON, reason)
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, Integer.toString(attempts))
                .containsEntry(Envelope.DEAD_LETTER_GROUP, "g")
                .containsEntry(Envelope.ERROR_TYPE, error.getName());
    }

    /** Subscribes an asynchronous handler of text messages and waits until ready. */
    private Subscription subscribeAsync(String destination, UnaryOperator<SubscriberBuilder<String>> settings,
            AsyncMessageHandler<String> handler) {
        Subscription subscription = settings.apply(switchboard().subscriber(destination, TEXT)).subscribeAsync(handler);
        join(subscription.ready());
        return subscription;
    }

    /** The payloads handed to a {@link #subscribeRecording} handler, and those whose stage completed normally. */
    private record Run(Queue<String> attempts, Queue<String> done, Duration timeout) {
        void awaitDone(String payload) {
            await().atMost(timeout).until(() -> done.contains(payload));
        }
    }

    /**
     * Subscribes a handler that records each attempt and returns {@code failing}'s stage for it, or, where that is
     * null, a stage the pool completes after a few milliseconds, recording the payload as done.
     */
    private Run subscribeRecording(String destination, UnaryOperator<SubscriberBuilder<String>> settings,
            BiFunction<Message<String>, DeliveryContext, CompletionStage<?>> failing) {
        Run run = new Run(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>(), timeout());
        subscribeAsync(destination, settings, (m, c) -> {
            run.attempts().add(m.payload());
            CompletionStage<?> failed = failing.apply(m, c);
            return failed != null ? failed : later(randomMillis(5, 20), () -> run.done().add(m.payload()));
        });
        return run;
    }

    /** A stage the pool completes with {@code work}'s result after {@code millis}. */
    private <R> CompletableFuture<R> later(long millis, java.util.concurrent.Callable<R> work) {
        CompletableFuture<R> stage = new CompletableFuture<>();
        pool.schedule(() -> {
            try {
                stage.complete(work.call());
            } catch (Exception e) {
                stage.completeExceptionally(e);
            }
        }, millis, TimeUnit.MILLISECONDS);
        return stage;
    }

    private static long randomMillis(int from, int to) {
        return ThreadLocalRandom.current().nextLong(from, to + 1);
    }
}
