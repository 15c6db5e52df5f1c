package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardClosedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Closing" cases; {@link BrokerContract} runs them as a nested group. */
abstract class ClosingCases extends ContractCases {

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
