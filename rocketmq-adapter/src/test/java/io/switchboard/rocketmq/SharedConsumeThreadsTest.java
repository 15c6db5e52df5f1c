package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.Recorder;
import io.switchboard.testkit.ThreadLeaks;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Subscriptions of one adapter run on its shared consume and timer threads
 * ({@code rocketmq.share-consume-threads}, issue 38): rocketmq-client's per-consumer threads end
 * once a consumer started, each subscription still gets its own records, closing one leaves the
 * others consuming, and closing them all leaves no thread behind.
 */
class SharedConsumeThreadsTest {

    private static final int SUBSCRIPTIONS = 30;
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    /** rocketmq-client's threads of one consumer: consume pool, scheduler, expired-message cleaner. */
    private static final Predicate<String> PER_CONSUMER =
            name -> name.startsWith("ConsumeMessageThread_") || name.startsWith("ConsumeMessageScheduledThread_")
                    || name.startsWith("CleanExpireMsgScheduledThread_");

    @Test
    @DisplayName("30 subscriptions of one group (orderly and concurrently) hold no consumer thread of their own")
    void shareThreads() throws Exception {
        Map<String, String> properties = new HashMap<>();
        // The broker first: its own threads are not the adapter's.
        properties.put("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress());
        ThreadLeaks before = ThreadLeaks.snapshot().ignoring(EmbeddedRocketMq.THREADS);
        String prefix = "shared_" + UUID.randomUUID().toString().substring(0, 8);
        try (Switchboard sb = Switchboard.builder().broker("rocketmq").instanceName(prefix).properties(properties).build()) {
            List<Subscription> subscriptions = new ArrayList<>();
            List<Recorder<String>> recorders = new ArrayList<>();
            List<Publisher<String>> publishers = new ArrayList<>();
            for (int i = 0; i < SUBSCRIPTIONS; i++) {
                String destination = prefix + "_" + i;
                Recorder<String> recorder = new Recorder<>(DEADLINE);
                String mode = i % 3 == 0 ? "concurrently" : "orderly";
                subscriptions.add(sb.subscriber(destination, Codec.utf8()).group("app").concurrency(1 + i % 2)
                        .property("rocketmq.consume-mode", mode).subscribe(recorder));
                recorders.add(recorder);
                publishers.add(sb.publisher(destination, Codec.utf8()).build());
            }
            for (Subscription subscription : subscriptions) {
                subscription.ready().toCompletableFuture().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }
            publishToAll(publishers, "a");
            for (int i = 0; i < SUBSCRIPTIONS; i++) {
                recorders.get(i).awaitCount(3);
                assertThat(recorders.get(i).payloads()).containsOnly("a" + i + "_0", "a" + i + "_1", "a" + i + "_2");
            }
            // The consumers' own schedulers end once shut down, their own pools' threads once idle.
            await().atMost(DEADLINE).until(() -> count(before, PER_CONSUMER) == 0);
            assertThat(count(before, name -> name.equals("switchboard-rocketmq-timer"))).isLessThanOrEqualTo(1);
            // Only while handlers run (at most the sum of the subscriptions' concurrency), then they retire.
            assertThat(count(before, name -> name.startsWith("switchboard-rocketmq-consume-")))
                    .isLessThanOrEqualTo(SUBSCRIPTIONS * 2);
            await().atMost(DEADLINE).until(() -> count(before, name -> name.startsWith("switchboard-rocketmq-consume-")) == 0);

            subscriptions.get(0).close();
            subscriptions.get(1).close();
            publishToAll(publishers, "b");
            for (int i = 2; i < SUBSCRIPTIONS; i++) {
                recorders.get(i).awaitCount(6);
            }
            assertThat(recorders.get(0).payloads()).hasSize(3);
            assertThat(recorders.get(1).payloads()).hasSize(3);
            assertThat(count(before, PER_CONSUMER)).isZero();

            subscriptions.forEach(Subscription::close);
            // Closing every subscription (the Switchboard still open) leaves no consume or timer thread.
            await().atMost(DEADLINE).until(() -> count(before, name -> PER_CONSUMER.test(name)
                    || name.startsWith("switchboard-rocketmq-consume-") || name.equals("switchboard-rocketmq-timer")) == 0);
        }
        // The in-process broker's own remoting clients start Netty threads of the same names as they need them.
        before.ignoring("NettyClientScan_thread_\\d+|NettyClientWorkerThread_\\d+")
                .assertAllEnded(DEADLINE, "after the Switchboard closed");
    }

    private static void publishToAll(List<Publisher<String>> publishers, String round) {
        for (int i = 0; i < publishers.size(); i++) {
            for (int m = 0; m < 3; m++) {
                publishers.get(i).publish(round + i + "_" + m).toCompletableFuture().join();
            }
        }
    }

    private static long count(ThreadLeaks before, Predicate<String> name) {
        return before.started().stream().filter(Thread::isAlive).map(Thread::getName).filter(name).count();
    }
}
