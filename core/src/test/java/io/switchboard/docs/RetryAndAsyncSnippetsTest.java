package io.switchboard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Java blocks of docs/delays-filters-retries.md (which failures are retried) and docs/delivery.md (async). */
@Timeout(60)
@DisplayName("The docs' retry classification and asynchronous handler examples run")
class RetryAndAsyncSnippetsTest {

    /** An HTTP client's failure with its status, as an application's own exception. */
    static final class HttpStatusException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        HttpStatusException(int status) {
            super("HTTP " + status);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    /** The payload of the async example. */
    public record Order(String id, long cents) {}

    /** The application's service the async example hands work to. */
    static final class Billing {
        final List<Order> charged = new CopyOnWriteArrayList<>();

        CompletionStage<Void> charge(Order order) {
            return CompletableFuture.runAsync(() -> charged.add(order));
        }
    }

    @Test
    @DisplayName("validation failures are not retried, only time-outs are, server errors are")
    void retryClassification() {
        // tag::retry-classification[]
        RetryPolicy validation = RetryPolicy.DEFAULT.notRetrying(IllegalArgumentException.class, ClassCastException.class);
        RetryPolicy timeouts = RetryPolicy.exponential(5, Duration.ofMillis(200), Duration.ofSeconds(5))
                .retryingOnly(TimeoutException.class);
        RetryPolicy serverErrors = RetryPolicy.DEFAULT.retryingWhen(e -> !(e instanceof HttpStatusException h) || h.status() >= 500);
        // end::retry-classification[]
        assertThat(validation.retries(new IllegalArgumentException("bad"))).isFalse();
        assertThat(validation.retries(new IllegalStateException("busy"))).isTrue();
        assertThat(timeouts.retries(new RuntimeException(new TimeoutException("slow")))).isTrue();
        assertThat(timeouts.retries(new IllegalStateException("busy"))).isFalse();
        assertThat(serverErrors.retries(new HttpStatusException(503))).isTrue();
        assertThat(serverErrors.retries(new HttpStatusException(400))).isFalse();
    }

    @Test
    @DisplayName("a handler that completes later is acknowledged when its stage completes")
    void asyncHandler() throws Exception {
        Billing billing = new Billing();
        Map<String, String> props = Map.of("memory.broker", "docs-async-" + UUID.randomUUID());
        try (Switchboard switchboard = Switchboard.builder().instance("main", "memory", props).build()) {
            // tag::async-handler[]
            Subscription s = switchboard.subscriber("orders", Codec.json(Order.class))
                    .group("billing")
                    .concurrency(8)                            // keys pending at once, at most
                    .handlerTimeout(Duration.ofSeconds(30))
                    .subscribeAsync((message, context) -> billing.charge(message.payload()));   // a CompletionStage
            // end::async-handler[]
            s.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
            switchboard.publisher("orders", Codec.json(Order.class)).build().publish(new Order("o-1", 100))
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (billing.charged.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(billing.charged).containsExactly(new Order("o-1", 100));
        }
    }
}
