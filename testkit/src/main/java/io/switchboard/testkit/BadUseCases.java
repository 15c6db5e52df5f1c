package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardClosedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Bad input: closed and shared objects" cases: using what was closed, closing
 * twice, closing while other threads publish, and two subscriptions of one group in one process.
 * Nothing accepted is lost and no call hangs.
 */
abstract class BadUseCases extends ContractCases {

    BadUseCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("subscribing on a closed Switchboard is refused")
    void subscribeAfterClose() {
        Switchboard sb = newSwitchboard();
        sb.close();
        assertThatThrownBy(() -> sb.subscriber(destination(), TEXT).group("g").subscribe((m, c) -> { }))
                .isInstanceOf(SwitchboardClosedException.class).hasMessageContaining("closed");
    }

    @Test
    @DisplayName("closing a Switchboard twice is harmless, and it stays closed")
    void doubleCloseSwitchboard() {
        Switchboard sb = newSwitchboard();
        Publisher<String> pub = sb.publisher(destination(), TEXT).build();
        sb.close();
        sb.close();
        assertThatThrownBy(() -> pub.publish("late")).isInstanceOf(SwitchboardClosedException.class);
        assertThatThrownBy(() -> sb.publisher(destination(), TEXT)).isInstanceOf(SwitchboardClosedException.class);
    }

    @Test
    @DisplayName("closing a publisher while four threads publish: every call ends, and every acknowledged message arrives")
    void closeWhilePublishing() throws Exception {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        Switchboard publishing = newSwitchboard();
        Publisher<String> pub = publishing.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
        List<CompletableFuture<PublishReceipt>> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
        Set<String> acceptedPayloads = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(4);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            for (int t = 0; t < 4; t++) {
                int thread = t;
                threads.execute(() -> {
                    started.countDown();
                    for (int i = 0; i < 2_000 && refused.get() == 0; i++) {
                        String payload = "t" + thread + "-" + i;
                        try {
                            CompletableFuture<PublishReceipt> f = pub.publish(keyed("k" + thread, payload)).toCompletableFuture();
                            accepted.add(f.whenComplete((r, e) -> {
                                if (e == null) {
                                    acceptedPayloads.add(payload);
                                }
                            }));
                        } catch (SwitchboardClosedException e) {
                            refused.incrementAndGet();
                        }
                    }
                });
            }
            assertThat(started.await(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            await().atMost(timeout()).until(() -> accepted.size() >= 50);
            pub.close();
        } finally {
            threads.shutdown();
            assertThat(threads.awaitTermination(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        }
        List<CompletableFuture<PublishReceipt>> calls;
        synchronized (accepted) {
            calls = List.copyOf(accepted);
        }
        // Every call made before the close ends, one way or the other: none hangs.
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                .get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(acceptedPayloads).isNotEmpty();
        await().atMost(timeout()).untilAsserted(() -> assertThat(Set.copyOf(rec.payloads())).containsAll(acceptedPayloads));
        assertThatThrownBy(() -> pub.publish("after")).isInstanceOf(SwitchboardClosedException.class);
    }

    @Test
    @DisplayName("two subscriptions of one group in one process share the messages: each is handled once")
    void twoSubscriptionsOneGroup() {
        String dest = destination();
        Recorder<String> first = recorder();
        Recorder<String> second = recorder();
        Subscription one = subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, first);
        Subscription two = subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, second);
        join(one.ready());
        join(two.ready());
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < 100; i++) {
            join(pub.publish(keyed("k" + i, "m" + i)));
        }
        await().atMost(timeout()).until(() -> first.payloads().size() + second.payloads().size() >= 100);
        List<String> all = new ArrayList<>(first.payloads());
        all.addAll(second.payloads());
        assertThat(all).hasSize(100).doesNotHaveDuplicates();
    }
}
