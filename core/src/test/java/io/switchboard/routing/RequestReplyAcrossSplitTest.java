package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Message;
import io.switchboard.Requester;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Request/reply across a split of two memory brokers: the reply comes back through the broker that carried the
 * request, and the request meters name it; the requester's refusals and its close. The same behaviours on each real
 * broker are the contract's "Request/reply" cases.
 */
@DisplayName("Request/reply across a split")
@Timeout(60)
class RequestReplyAcrossSplitTest {

    private static final Codec<String> TEXT = Codec.utf8();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** Made for each test (JUnit makes an instance per test), closed after it. */
    private final Switchboard sb = TwoMemoryBrokers.builder().route("quotes", Route.split(Map.of("a", 50, "b", 50)))
            .meterRegistry(registry).build();

    @AfterEach
    void stop() {
        sb.close();
    }

    @Test
    @DisplayName("each reply comes back through the broker that carried its request, and is counted under it")
    void replyThroughTheCarrier() {
        Map<String, String> carrier = new ConcurrentHashMap<>();
        // tag::responder[]
        Subscription responder = sb.subscriber("quotes", TEXT).group("pricing").concurrency(2)
                .subscribeReplying(TEXT, (m, c) -> {          // the return value is the reply
                    carrier.put(m.payload(), c.instance());
                    return "price of " + m.payload();
                });
        // end::responder[]
        responder.ready().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        // tag::requester[]
        try (Requester<String, String> requester = sb.requester("quotes", TEXT, TEXT)
                .timeout(Duration.ofSeconds(5))                   // the default; request(m, timeout) per call
                .build()) {                                        // replies on "quotes-replies"
            List<CompletableFuture<Message<String>>> replies = new ArrayList<>();
            int n = 400;
            for (int i = 0; i < n; i++) {
                replies.add(requester.request(Message.of("sku-" + i, "sku-" + i)));
            }
            // end::requester[]
            for (int i = 0; i < n; i++) {
                assertThat(replies.get(i).orTimeout(10, TimeUnit.SECONDS).join().payload()).isEqualTo("price of sku-" + i);
            }
            long viaA = carrier.values().stream().filter("a"::equals).count();
            assertThat(viaA).as("requests carried by a, of %d", n).isBetween(100L, 300L);
            assertThat(successes("a")).as("replies counted under a").isEqualTo(viaA);
            assertThat(successes("b")).as("replies counted under b").isEqualTo(n - viaA);
            assertThat(requester.pending()).isZero();
        }
    }

    @Test
    @DisplayName("a request is no longer pending by the time its caller sees the reply or the time-out")
    void forgottenBeforeTheCallerWakes() {
        sb.subscriber("quotes", TEXT).group("pricing").subscribeReplying(TEXT, (m, c) -> m.payload().equals("never") ? null
                : "re:" + m.payload()).ready().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        try (Requester<String, String> requester = sb.requester("quotes", TEXT, TEXT).build()) {
            // the caller's own dependents run before the requester's end of the request: what they see is what a
            // thread woken by join() may see
            int afterReply = requester.request(Message.of("one")).thenApply(r -> requester.pending()).toCompletableFuture()
                    .orTimeout(10, TimeUnit.SECONDS).join();
            int afterTimeout = requester.request(Message.of("never"), Duration.ofMillis(50)).handle((r, e) -> requester
                    .pending()).toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
            assertThat(afterReply).as("pending when the reply completes the caller's future").isZero();
            assertThat(afterTimeout).as("pending when the time-out completes the caller's future").isZero();
        }
    }

    @Test
    @DisplayName("a reply destination equal to the request destination and a non-positive time-out are refused, naming the fix")
    void refusals() {
        assertThatThrownBy(() -> sb.requester("quotes", TEXT, TEXT).replyTo("quotes").build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'quotes'").hasMessageContaining("replyTo(");
        assertThatThrownBy(() -> sb.requester("quotes", TEXT, TEXT).timeout(Duration.ZERO))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("PT0S");
        try (Requester<String, String> requester = sb.requester("quotes", TEXT, TEXT).build()) {
            assertThatThrownBy(() -> requester.request(Message.of("x"), Duration.ofMillis(-1)))
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("PT-0.001S");
            assertThat(requester.pending()).isZero();
        }
    }

    @Test
    @DisplayName("closing the requester fails its pending requests and frees them; a request after close is refused")
    void closeFailsPending() {
        Requester<String, String> requester = sb.requester("quotes", TEXT, TEXT).build(); // nobody replies
        CompletableFuture<Message<String>> pending = requester.request(Message.of("x"), Duration.ofMinutes(1));
        assertThat(requester.pending()).isEqualTo(1);
        requester.close();
        assertThat(pending).isCompletedExceptionally();
        assertThatThrownBy(pending::join).hasCauseInstanceOf(SwitchboardClosedException.class);
        assertThat(requester.pending()).isZero();
        assertThatThrownBy(() -> requester.request("y")).isInstanceOf(SwitchboardClosedException.class)
                .hasMessageContaining("'quotes'");
    }

    @Test
    @DisplayName("cancelling a request's future frees its state")
    void cancelFrees() {
        try (Requester<String, String> requester = sb.requester("quotes", TEXT, TEXT).build()) {
            CompletableFuture<Message<String>> pending = requester.request(Message.of("x"), Duration.ofMinutes(1));
            assertThat(requester.pending()).isEqualTo(1);
            pending.cancel(false);
            assertThat(requester.pending()).isZero();
        }
    }

    private long successes(String instance) {
        return registry.find("switchboard.request").tag("instance", instance).tag("outcome", "success").timers().stream()
                .mapToLong(t -> t.count()).sum();
    }
}
