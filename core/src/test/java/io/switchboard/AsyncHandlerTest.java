package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.internal.AwaitingHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SubscriberBuilder#subscribeAsync}: on the memory broker, a key whose stage is pending holds only that key,
 * the in-flight bound counts pending stages, the handler's duration runs until completion; and the wrapper's
 * failures (null, timeout, wrapped exceptions) on their own.
 */
@DisplayName("Asynchronous handlers")
@Timeout(60)
class AsyncHandlerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private Switchboard sb;
    private Subscription subscription;
    /** The stage handed out for each payload, completed by the test. */
    private final Map<String, CompletableFuture<Void>> stages = new ConcurrentHashMap<>();
    private final List<String> handed = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        stages.values().forEach(s -> s.complete(null));
        if (sb != null) {
            sb.close();
        }
    }

    private Publisher<String> subscribe(UnaryOperator<SubscriberBuilder<String>> settings, MeterRegistry registry) {
        Switchboard.Builder b = Switchboard.builder().broker("memory").property("memory.broker", "async-" + UUID.randomUUID());
        sb = (registry == null ? b : b.meterRegistry(registry)).build();
        subscription = settings.apply(sb.subscriber("orders", Codec.utf8()).group("g")).subscribeAsync((m, c) -> {
            handed.add(m.payload());
            return stages.computeIfAbsent(m.payload(), p -> new CompletableFuture<>());
        });
        subscription.ready().toCompletableFuture().join();
        return sb.publisher("orders", Codec.utf8()).build();
    }

    private CompletableFuture<Void> stage(String payload) {
        return stages.computeIfAbsent(payload, p -> new CompletableFuture<>());
    }

    @Test
    @DisplayName("a pending stage holds the next message of its key, while other keys go on")
    void pendingStageHoldsOnlyItsKey() {
        Publisher<String> p = subscribe(b -> b.concurrency(4), null);
        p.publish(Message.of("held", "held-1")).toCompletableFuture().join();
        p.publish(Message.of("held", "held-2")).toCompletableFuture().join();
        for (int k = 0; k < 8; k++) {
            String payload = "other-" + k;
            stage(payload).complete(null); // completed before it is handed out
            p.publish(Message.of("key-" + k, payload)).toCompletableFuture().join();
        }
        // some other key shares no lane with "held": its message is handled while held-1's stage is pending
        await().atMost(WAIT).until(() -> handed.contains("held-1") && handed.stream().anyMatch(h -> h.startsWith("other-")));
        assertThat(handed).as("held-2 waits for held-1's stage").doesNotContain("held-2");

        stage("held-1").complete(null);
        await().atMost(WAIT).until(() -> handed.contains("held-2"));
        assertThat(handed.indexOf("held-2")).isGreaterThan(handed.indexOf("held-1"));
    }

    @Test
    @DisplayName("messages whose stage is pending count towards maxInFlight")
    void pendingStagesAreInFlight() {
        Publisher<String> p = subscribe(b -> b.concurrency(8).maxInFlight(3), null);
        for (int k = 0; k < 10; k++) {
            p.publish(Message.of("key-" + k, "m" + k)).toCompletableFuture().join();
        }
        await().atMost(WAIT).until(() -> handed.size() >= 3);
        // a short grace to show that no fourth message is handed out while three stages are pending (nothing to await)
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);

        for (int k = 0; k < 10; k++) {
            stage("m" + k).complete(null); // the pending ones, and those not handed out yet as soon as they are
        }
        await().atMost(WAIT).until(() -> handed.size() == 10);
    }

    @Test
    @DisplayName("the handler's duration (switchboard.handle) runs until the stage completed")
    void durationUntilCompletion() {
        MeterRegistry registry = new SimpleMeterRegistry();
        Publisher<String> p = subscribe(b -> b, registry);
        p.publish("slow").toCompletableFuture().join();
        await().atMost(WAIT).until(() -> handed.contains("slow"));
        CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(() -> stage("slow").complete(null));
        await().atMost(WAIT).until(() -> registry.find("switchboard.handle").tags("outcome", "ack").timer() != null
                && registry.find("switchboard.handle").tags("outcome", "ack").timer().count() == 1);
        double measured = registry.get("switchboard.handle").tags("outcome", "ack").timer().totalTime(TimeUnit.NANOSECONDS);
        assertThat(measured).as("handler duration in ns, the stage completed 200 ms after the message was handed out")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
    }

    @Test
    @DisplayName("close waits for a pending stage (drainTimeout) and the completed message is acknowledged, not redelivered")
    void closeDrainsPendingStages() {
        Publisher<String> p = subscribe(b -> b.drainTimeout(Duration.ofSeconds(20)), null);
        p.publish(Message.of("k", "pending")).toCompletableFuture().join();
        await().atMost(WAIT).until(() -> handed.contains("pending"));
        CompletableFuture<Void> closed = CompletableFuture.runAsync(subscription::close);
        // a short grace to show that close still waits while the stage is pending (its not returning is no event)
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !closed.isDone());
        stage("pending").complete(null);
        closed.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();

        List<String> again = new CopyOnWriteArrayList<>();
        sb.subscriber("orders", Codec.utf8()).group("g").subscribe((m, c) -> again.add(m.payload()))
                .ready().toCompletableFuture().join();
        p.publish(Message.of("k", "marker")).toCompletableFuture().join();
        await().atMost(WAIT).until(() -> again.contains("marker"));
        assertThat(again).as("the same key's messages after the close, in order: no redelivery of 'pending'")
                .containsExactly("marker");
    }

    // ---- the wrapper alone ----

    private static final DeliveryContext CONTEXT = new DeliveryContext("orders", "g", "memory", "memory", 0, 7L, 1, 3, null, null);

    private static void run(AsyncMessageHandler<String> handler, Duration timeout) throws Exception {
        new AwaitingHandler<>(handler, timeout).handle(Message.builder("x").id("id-42").build(), CONTEXT);
    }

    @Test
    @DisplayName("a stage not done in time fails with a TimeoutException naming destination, group, id and the setting")
    void timeoutNamesEverything() {
        assertThatThrownBy(() -> run((m, c) -> new CompletableFuture<Void>(), Duration.ofMillis(50)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContainingAll("'orders'", "'g'", "id-42", "handlerTimeout PT0.05S", "SubscriberBuilder.handlerTimeout");
    }

    @Test
    @DisplayName("a null stage fails with an error saying what to return")
    void nullStage() {
        assertThatThrownBy(() -> run((m, c) -> null, Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll("'orders'", "id-42", "returned null", "CompletableFuture.completedFuture(null)");
    }

    @Test
    @DisplayName("the failure a stage completed with is thrown as itself, out of CompletionExceptions")
    void failureUnwrapped() {
        IllegalArgumentException cause = new IllegalArgumentException("no lines");
        assertThatThrownBy(() -> run((m, c) -> CompletableFuture.failedFuture(new CompletionException(cause)),
                Duration.ofSeconds(1))).isSameAs(cause);
        assertThatThrownBy(() -> run((m, c) -> CompletableFuture.supplyAsync(() -> {
            throw cause;
        }).thenApply(x -> x), Duration.ofSeconds(5))).isSameAs(cause);
    }

    @Test
    @DisplayName("a stage that is no CompletableFuture is waited on too")
    void minimalStage() throws Exception {
        CompletionStage<String> minimal = CompletableFuture.completedFuture("done").minimalCompletionStage();
        run((m, c) -> minimal, Duration.ofSeconds(1));
        CompletionStage<String> foreign = new ForeignStage();
        run((m, c) -> foreign, Duration.ofSeconds(1));
    }

    /** A stage of another library, which cannot be turned into a CompletableFuture. */
    private static final class ForeignStage extends CompletableFuture<String> {
        ForeignStage() {
            complete("done");
        }

        @Override
        public CompletableFuture<String> toCompletableFuture() {
            throw new UnsupportedOperationException("not a CompletableFuture");
        }
    }
}
