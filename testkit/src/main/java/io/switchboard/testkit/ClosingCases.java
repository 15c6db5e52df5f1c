package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The contract's "Closing" cases; {@link BrokerContract} runs them as a nested group. */
abstract class ClosingCases extends ContractCases {

    /** How long the threads of what closed may take to end. */
    private static final Duration LEAK_DEADLINE = Duration.ofSeconds(30);

    ClosingCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("a subscription lets handlers in flight finish and loses nothing")
    void gracefulCloseLosesNothing() throws Exception {
        String dest = destination();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> handled = java.util.Collections.synchronizedList(new ArrayList<>());
        Subscription first = subscribe(switchboard(), dest, TEXT, b -> b.group("g").maxInFlight(8), (m, c) -> {
            if (m.payload().equals("m0")) {
                inHandler.countDown();
                release.await(timeout().toMillis(), TimeUnit.MILLISECONDS);
            }
            handled.add(m.payload());
        });
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < 40; i++) {
            join(pub.publish(keyed("k", "m" + i)));
        }
        assertThat(inHandler.await(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        ExecutorService closer = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close, closer);
            release.countDown();
            join(closing);
        } finally {
            closer.shutdown();
        }
        assertThat(handled).contains("m0");
        assertThat(join(first.terminated())).isNull();

        Recorder<String> second = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, second);
        await().atMost(timeout()).until(() -> {
            List<String> all = new ArrayList<>(handled);
            all.addAll(second.payloads());
            return all.stream().distinct().count() == 40;
        });
        assertThat(second.payloads()).doesNotContain("m0");
    }

    @Test
    @Tag("threads")
    @DisplayName("closing a subscription, a publisher and the Switchboard ends every thread they started")
    void closingEndsEveryThread() {
        ThreadLeaks before = contract().threadsBefore();
        Switchboard sb = newSwitchboard();
        Delivery[] deliveries = {Delivery.AT_LEAST_ONCE, Delivery.AT_MOST_ONCE, Delivery.EXACTLY_ONCE};
        List<Recorder<String>> recorders = new ArrayList<>();
        for (int i = 0; i < deliveries.length; i++) {
            String dest = destination();
            Delivery delivery = deliveries[i];
            int concurrency = i + 1;
            Recorder<String> group = recorder();
            subscribe(sb, dest, TEXT, b -> b.group("g").delivery(delivery).concurrency(concurrency), group);
            recorders.add(group);
            if (i == 0 && capabilities().broadcast()) {
                Recorder<String> all = recorder();
                subscribe(sb, dest, TEXT, b -> b.broadcast(), all);
                recorders.add(all);
            }
            publishFive(sb, dest, delivery);
        }
        recorders.forEach(r -> r.awaitCount(5));

        // A first subscription and publisher that come and go start what the instance shares and
        // starts on first use (an event thread, a pooled delivery thread); the second must add nothing.
        subscribeAndLeave(sb);
        ThreadLeaks running = contract().threadsBefore().ignoring(contract().poolThreadsOfOpenClients());
        subscribeAndLeave(sb);
        running.assertAllEnded(LEAK_DEADLINE, "after a subscription and a publisher came and went, the Switchboard open");

        sb.close();
        before.assertAllEnded(LEAK_DEADLINE, "after the Switchboard closed");
    }

    private void subscribeAndLeave(Switchboard sb) {
        String leaving = destination();
        Recorder<String> once = recorder();
        Subscription subscription = subscribe(sb, leaving, TEXT, b -> b.group("leaving").concurrency(2), once);
        Publisher<String> publisher = publishFive(sb, leaving, Delivery.AT_LEAST_ONCE);
        once.awaitCount(5);
        subscription.close();
        publisher.close();
    }

    private Publisher<String> publishFive(Switchboard sb, String dest, Delivery delivery) {
        Publisher<String> pub = sb.publisher(dest, TEXT).delivery(delivery).build();
        for (int m = 0; m < 5; m++) {
            join(pub.publish(keyed("k" + m, "m" + m)));
        }
        return pub;
    }

    @Test
    @DisplayName("a publisher refuses to publish after close")
    void publishAfterClose() {
        Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
        pub.close();
        pub.close();
        assertThatThrownBy(() -> pub.publish("late")).isInstanceOf(SwitchboardClosedException.class)
                .hasMessageContaining("closed");
    }

    @Test
    @DisplayName("the Switchboard closes what it made and refuses new work")
    void switchboardClosesEverything() {
        String dest = destination();
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        Subscription sub = subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, recorder());
        switchboard().close();
        assertThat(sub.isActive()).isFalse();
        assertThatThrownBy(() -> pub.publish("late")).isInstanceOf(SwitchboardClosedException.class);
        assertThatThrownBy(() -> switchboard().publisher(dest, TEXT)).isInstanceOf(SwitchboardClosedException.class);
    }

    @Test
    @DisplayName("a subscription's close is idempotent and completes terminated()")
    void closeIsIdempotent() {
        Subscription sub = subscribe(destination(), TEXT, "g", Delivery.AT_LEAST_ONCE, recorder());
        sub.close();
        sub.close();
        assertThat(sub.isActive()).isFalse();
        assertThat(sub.terminated().toCompletableFuture()).isCompleted();
    }
}
