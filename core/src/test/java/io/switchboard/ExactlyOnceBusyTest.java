package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.internal.idempotency.InMemoryIdempotencyStore;
import io.switchboard.routing.Route;
import io.switchboard.spi.IdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An exactly-once delivery whose id another delivery holds (BUSY) is never acknowledged as a
 * duplicate: it waits, then processes the id when the holder releases it, or skips it when the
 * holder completes it, or goes back to the broker when the wait runs out. On the memory broker with
 * the in-memory store, the other delivery played by the test claiming the id first.
 */
@DisplayName("Exactly-once: an id held by another delivery (BUSY)")
class ExactlyOnceBusyTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final CountingStore store = new CountingStore(new InMemoryIdempotencyStore(1000));
    private Switchboard sb;

    @AfterEach
    void close() {
        if (sb != null) {
            sb.close();
        }
    }

    private record Handled(String id, int attempt, String scope) {}

    private Publisher<String> subscribe(List<Handled> handled, Map<String, String> subscriptionProperties) {
        sb = Switchboard.builder().broker("memory").property("memory.broker", "busy-" + UUID.randomUUID())
                .idempotencyStore(store).build();
        SubscriberBuilder<String> builder = sb.subscriber("orders", Codec.utf8()).group("g").delivery(Delivery.EXACTLY_ONCE);
        subscriptionProperties.forEach(builder::property);
        Subscription s = builder.subscribe((m, c) -> handled.add(new Handled(m.id(), c.attempt(), c.idempotencyScope())));
        s.ready().toCompletableFuture().join();
        return sb.publisher("orders", Codec.utf8()).build();
    }

    @Test
    @DisplayName("the holder fails and releases: the waiting delivery claims the id and handles it (it was acked away before)")
    void holderReleases() {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        Publisher<String> p = subscribe(handled, Map.of());
        assertThat(store.claim("orders/g", "id-1")).isEqualTo(IdempotencyStore.Claim.CLAIMED);
        p.publish(Message.builder("one").key("k").id("id-1").build()).toCompletableFuture().join();
        await().atMost(WAIT).until(() -> store.busy.get() >= 2);
        assertThat(handled).as("not handled while another delivery holds the id").isEmpty();

        store.release("orders/g", "id-1");
        await().atMost(WAIT).until(() -> handled.size() == 1);
        assertThat(handled.get(0).id()).isEqualTo("id-1");
        assertThat(handled.get(0).scope()).as("the scope handed to the handler").isEqualTo("orders/g");
        assertThat(store.claim("orders/g", "id-1")).isEqualTo(IdempotencyStore.Claim.DONE);
    }

    @Test
    @DisplayName("the holder completes: the waiting delivery is acked as a duplicate, the next message follows")
    void holderCompletes() {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        Publisher<String> p = subscribe(handled, Map.of());
        store.claim("orders/g", "id-1");
        p.publish(Message.builder("one").key("k").id("id-1").build()).toCompletableFuture().join();
        p.publish(Message.builder("two").key("k").id("id-2").build()).toCompletableFuture().join();
        await().atMost(WAIT).until(() -> store.busy.get() >= 2);
        assertThat(handled).isEmpty();

        store.complete("orders/g", "id-1");
        await().atMost(WAIT).until(() -> handled.size() == 1);
        assertThat(handled).extracting(Handled::id).containsExactly("id-2");
    }

    @Test
    @DisplayName("the wait runs out: the record goes back to the broker, is redelivered and handled once the id is free")
    void waitRunsOut() {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        Publisher<String> p = subscribe(handled, Map.of("switchboard.exactly-once.busy-wait", "100ms"));
        store.claim("orders/g", "id-1");
        p.publish(Message.builder("one").key("k").id("id-1").build()).toCompletableFuture().join();
        // a 100 ms wait asks at most 5 times (10 + 20 + 40 + 80 ms pauses): 12 answers take 3 deliveries at least
        await().atMost(WAIT).until(() -> store.busy.get() >= 12);
        assertThat(handled).isEmpty();

        store.release("orders/g", "id-1");
        await().atMost(WAIT).until(() -> handled.size() == 1);
        assertThat(handled.get(0).attempt()).as("a broker redelivery").isGreaterThan(1);
    }

    @Test
    @DisplayName("routing dedup (migrate): an id held through another instance is waited for, then handled once")
    void routingDedupWaits() {
        String run = UUID.randomUUID().toString();
        sb = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run))
                .route("orders", Route.migrate("a", "b"))
                .idempotencyStore(store)
                .build();
        List<Handled> handled = new CopyOnWriteArrayList<>();
        Subscription s = sb.subscriber("orders", Codec.utf8()).group("g")
                .subscribe((m, c) -> handled.add(new Handled(m.id(), c.attempt(), c.idempotencyScope())));
        s.ready().toCompletableFuture().join();
        store.claim("route:orders/g", "id-1");
        sb.publisher("orders", Codec.utf8()).build().publish(Message.builder("one").key("k").id("id-1").build())
                .toCompletableFuture().join();
        await().atMost(WAIT).until(() -> store.busy.get() >= 2);
        assertThat(handled).isEmpty();

        store.release("route:orders/g", "id-1");
        await().atMost(WAIT).until(() -> handled.size() == 1);
        assertThat(handled.get(0).scope()).as("the routing layer's scope").isEqualTo("route:orders/g");
    }

    /** Counts the BUSY answers of a store. */
    private static final class CountingStore implements IdempotencyStore {
        final IdempotencyStore delegate;
        final AtomicInteger busy = new AtomicInteger();

        CountingStore(IdempotencyStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Claim claim(String scope, String messageId) {
            Claim c = delegate.claim(scope, messageId);
            if (c == Claim.BUSY) {
                busy.incrementAndGet();
            }
            return c;
        }

        @Override
        public void complete(String scope, String messageId) {
            delegate.complete(scope, messageId);
        }

        @Override
        public void release(String scope, String messageId) {
            delegate.release(scope, messageId);
        }
    }
}
