package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.ReplyingHandler;
import io.switchboard.RequestTimeoutException;
import io.switchboard.Requester;
import io.switchboard.RequesterBuilder;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract's "Request/reply" cases ({@link Requester}, {@link SubscriberBuilder#subscribeReplying}): each reply
 * reaches its own request among many in flight and several responders, a request no one answers ends at its time-out
 * and leaves no state, a late reply is dropped and counted, requesters sharing a reply destination keep their own
 * replies, and a request without reply headers is handled once with no reply; {@link BrokerContract} runs them as a
 * nested group. Each case has two minutes at most.
 */
@Timeout(120)
abstract class RequestReplyCases extends ContractCases {

    RequestReplyCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("200 requests in flight across 4 responders: each completes with its own reply, and no state is left")
    void repliesReachTheirRequests() {
        String dest = destination();
        Map<String, String> responders = new ConcurrentHashMap<>();
        for (int r = 0; r < 4; r++) {
            String name = "responder-" + r;
            subscribeReplying(switchboard(), dest, b -> b.group("responders"), (m, c) -> {
                responders.put(m.payload(), name);
                return "re:" + m.payload();
            });
        }
        // the default reply destination, <destination>-replies: a name every broker takes
        try (Requester<String, String> requester = switchboard().requester(dest, TEXT, TEXT).timeout(timeout()).build()) {
            assertThat(requester.replyTo()).isEqualTo(dest + RequesterBuilder.REPLIES_SUFFIX);
            int n = 200;
            List<CompletableFuture<Message<String>>> replies = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                replies.add(requester.request(keyed("k-" + i % 16, "q" + i)));
            }
            for (int i = 0; i < n; i++) {
                Message<String> reply = join(replies.get(i));
                assertThat(reply.payload()).as("reply to request %d", i).isEqualTo("re:q" + i);
                assertThat(reply.headers()).containsKey(Envelope.CORRELATION_ID);
            }
            assertThat(responders).hasSize(n);
            assertThat(requester.pending()).as("requests pending after every reply came").isZero();
        }
    }

    @Test
    @DisplayName("a request no one answers fails at its time-out naming the destination, and frees its state; the next is answered")
    void unansweredRequestTimesOut() {
        String dest = destination();
        subscribeReplying(switchboard(), dest, b -> b.group("responders"), (m, c) -> m.payload().equals("ignore") ? null
                : "re:" + m.payload());
        try (Requester<String, String> requester = switchboard().requester(dest, TEXT, TEXT).replyTo(destination())
                .timeout(timeout()).build()) {
            CompletableFuture<Message<String>> ignored = requester.request(Message.of("ignore"), Duration.ofMillis(500));
            assertThatThrownBy(() -> ignored.get(timeout().toMillis(), TimeUnit.MILLISECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RequestTimeoutException.class)
                    .hasMessageContaining(dest).hasMessageContaining("500 ms");
            assertThat(requester.pending()).as("requests pending after the time-out").isZero();
            assertThat(join(requester.request("answered")).payload()).isEqualTo("re:answered");
            assertThat(requester.pending()).isZero();
        }
    }

    @Test
    @DisplayName("a reply that comes after its request's time-out is dropped and counted, and the requester goes on")
    void lateReplyDropped() throws InterruptedException {
        MeterRegistry registry = new SimpleMeterRegistry();
        Switchboard sb = newSwitchboard(b -> b.meterRegistry(registry));
        String dest = destination();
        CountDownLatch release = new CountDownLatch(1);
        subscribeReplying(sb, dest, b -> b.group("responders"), (m, c) -> {
            if (m.payload().equals("slow")) {
                assertThat(release.await(60, TimeUnit.SECONDS)).as("the test released the slow responder").isTrue();
            }
            return "re:" + m.payload();
        });
        try (Requester<String, String> requester = sb.requester(dest, TEXT, TEXT).replyTo(destination()).build()) {
            CompletableFuture<Message<String>> slow = requester.request(Message.of("slow"), Duration.ofMillis(300));
            await().atMost(timeout()).until(slow::isDone);
            assertThat(slow).isCompletedExceptionally();
            release.countDown();
            await().atMost(timeout()).until(() -> registry.find("switchboard.request.replies.dropped").counters().stream()
                    .mapToDouble(c -> c.count()).sum() >= 1);
            assertThat(registry.find("switchboard.request").tag("outcome", "timeout").timers().stream()
                    .mapToLong(t -> t.count()).sum()).isEqualTo(1);
            assertThat(join(requester.request(Message.of("fast"), timeout())).payload()).isEqualTo("re:fast");
            assertThat(requester.pending()).isZero();
        }
    }

    @Test
    @DisplayName("two requesters sharing one reply destination each complete with their own replies")
    void sharedReplyDestination() {
        String dest = destination();
        String replies = destination();
        subscribeReplying(switchboard(), dest, b -> b.group("responders"), (m, c) -> "re:" + m.payload());
        try (Requester<String, String> a = switchboard().requester(dest, TEXT, TEXT).replyTo(replies).timeout(timeout()).build();
                Requester<String, String> b = switchboard().requester(dest, TEXT, TEXT).replyTo(replies).timeout(timeout())
                        .build()) {
            List<CompletableFuture<Message<String>>> fromA = new ArrayList<>();
            List<CompletableFuture<Message<String>>> fromB = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                fromA.add(a.request("a" + i));
                fromB.add(b.request("b" + i));
            }
            for (int i = 0; i < 20; i++) {
                assertThat(join(fromA.get(i)).payload()).isEqualTo("re:a" + i);
                assertThat(join(fromB.get(i)).payload()).isEqualTo("re:b" + i);
            }
            assertThat(a.pending() + b.pending()).isZero();
        }
    }

    @Test
    @DisplayName("a message without reply headers reaches a replying subscription once, is acknowledged, and gets no reply")
    void requestWithoutReplyHeaders() {
        String dest = destination();
        Queue<String> handled = new ConcurrentLinkedQueue<>();
        subscribeReplying(switchboard(), dest, b -> b.group("responders"), (m, c) -> {
            handled.add(m.payload());
            return "re:" + m.payload();
        });
        Publisher<String> plain = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        join(plain.publish("no-reply-wanted"));
        await().atMost(timeout()).until(() -> handled.contains("no-reply-wanted"));
        // nothing may come again: there is no event to await for a redelivery that must not happen
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 1);
        assertThat(Set.copyOf(handled)).containsExactly("no-reply-wanted");
    }

    /** Subscribes a replying handler of text requests with text replies and waits until ready. */
    private Subscription subscribeReplying(Switchboard sb, String destination, UnaryOperator<SubscriberBuilder<String>> settings,
            ReplyingHandler<String, String> handler) {
        Subscription subscription = settings.apply(sb.subscriber(destination, TEXT)).subscribeReplying(TEXT, handler);
        join(subscription.ready());
        return subscription;
    }
}
