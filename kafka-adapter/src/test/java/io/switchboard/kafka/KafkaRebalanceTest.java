package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Recorder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A consumer group rebalanced mid-stream")
class KafkaRebalanceTest {

    /** Messages a member handles before the next step: the stream keeps flowing across every step. */
    private static final int STEP = 500;
    private static final int PARTITIONS = 6;

    private final Switchboard first = KafkaTestSupport.switchboard();
    private final Switchboard second = KafkaTestSupport.switchboard();

    @AfterEach
    void close() {
        first.close();
        second.close();
    }

    @Test
    @DisplayName("loses nothing when a member joins and another leaves while messages flow, and commits all it handled")
    void nothingLostAcrossRebalances() throws Exception {
        String topic = KafkaTestSupport.topic("rebalance");
        first.provisioning().ensureDestination(DestinationSpec.of(topic, PARTITIONS));
        Recorder<String> a = new Recorder<>(TIMEOUT);
        Recorder<String> b = new Recorder<>(TIMEOUT);
        Subscription memberA = first.subscriber(topic, Codec.utf8()).group("workers").concurrency(3).maxInFlight(64)
                .subscribe(a);
        memberA.ready().toCompletableFuture().get();

        Publisher<String> publisher = first.publisher(topic, Codec.utf8()).build();
        AtomicBoolean keepPublishing = new AtomicBoolean(true);
        CompletableFuture<Integer> publishing = CompletableFuture.supplyAsync(() -> publishWhile(publisher, keepPublishing));

        await().atMost(TIMEOUT).until(() -> a.received().size() >= STEP);
        Subscription memberB = second.subscriber(topic, Codec.utf8()).group("workers").concurrency(3).maxInFlight(64)
                .subscribe(b);
        memberB.ready().toCompletableFuture().get();
        await().atMost(TIMEOUT).until(() -> b.received().size() >= STEP);
        memberA.close();
        int handledByB = b.received().size();
        await().atMost(TIMEOUT).until(() -> b.received().size() >= handledByB + STEP);
        keepPublishing.set(false);
        int published = publishing.get();

        Set<String> expected = IntStream.range(0, published).mapToObj(Integer::toString).collect(Collectors.toSet());
        await().atMost(TIMEOUT).until(() -> handled(a, b).containsAll(expected));
        assertThat(handled(a, b)).isEqualTo(expected);
        assertThat(a.payloads()).as("member A's share").isNotEmpty();

        try (KafkaAdapter admin = new KafkaAdapter(new BrokerConfig("admin", "kafka",
                Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap())))) {
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(admin.lag(topic, "workers"))
                    .as("lag per partition once everything was handled").hasSize(PARTITIONS).allSatisfy((p, lag) -> assertThat(lag).isZero()));
        }
    }

    /** Publishes numbered messages in chunks until told to stop; returns how many. */
    private static int publishWhile(Publisher<String> publisher, AtomicBoolean keepPublishing) {
        int count = 0;
        while (keepPublishing.get()) {
            List<CompletableFuture<PublishReceipt>> chunk = new ArrayList<>();
            for (int i = 0; i < 100; i++, count++) {
                chunk.add(publisher.publish(Message.of("key-" + (count % 60), Integer.toString(count))).toCompletableFuture());
            }
            CompletableFuture.allOf(chunk.toArray(CompletableFuture[]::new)).join();
        }
        return count;
    }

    private static Set<String> handled(Recorder<String> a, Recorder<String> b) {
        Set<String> all = new HashSet<>(a.payloads());
        all.addAll(b.payloads());
        return all;
    }
}
