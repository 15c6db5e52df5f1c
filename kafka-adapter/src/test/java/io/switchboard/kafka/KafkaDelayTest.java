package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Delayed delivery through the delay topics and their forwarder, on a broker of this class's own (one test restarts
 * it). Each test prints {@code capability=delay broker=kafka ... early=0 ... lost=0}.
 */
@DisplayName("Kafka delayed delivery")
class KafkaDelayTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration OUTAGE = Duration.ofSeconds(3);
    private static EmbeddedKafka broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafka.builder().brokerProperty("num.io.threads", "2").brokerProperty("num.network.threads", "2")
                .start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Switchboard switchboard() {
        return Switchboard.builder().broker("kafka").property("kafka.bootstrap.servers", broker.bootstrapServers())
                .property("kafka.max.block.ms", "20000").build();
    }

    @Test
    @DisplayName("short delays published after long ones arrive first, through tiers 1s and 10s; none early")
    void tiersInterleaved() {
        String topic = KafkaTestSupport.topic("delay-tiers");
        DelayLedger ledger = new DelayLedger("tiers-interleaved");
        try (Switchboard sb = switchboard()) {
            subscribed(sb, topic, ledger);
            Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).build();
            ledger.publishAll(publisher, "long-", 10, 11_000, 150); // 10s tier, then the 1s tier
            ledger.publishAll(publisher, "mid-", 10, 2_000, 150); // 1s tier, hopping back into it
            ledger.publishAll(publisher, "short-", 10, 200, 70); // shorter than the shortest tier
            ledger.awaitAll(TIMEOUT);
            long firstLong = java.util.stream.IntStream.range(0, 10).mapToLong(i -> ledger.arrivedAt("long-" + i)).min().orElseThrow();
            for (int i = 0; i < 10; i++) {
                assertThat(ledger.arrivedAt("mid-" + i)).as("mid-" + i + " before the first long one").isLessThan(firstLong);
                assertThat(ledger.arrivedAt("short-" + i)).as("short-" + i + " before the first long one").isLessThan(firstLong);
            }
            ledger.report("tiers=1s,10s");
        }
    }

    @Test
    @DisplayName("delayed messages wait in Kafka while no application runs, and arrive after a new one starts; none early")
    void survivesTheApplicationClosing() {
        String topic = KafkaTestSupport.topic("delay-restart");
        DelayLedger ledger = new DelayLedger("application-closed");
        try (Switchboard first = switchboard()) {
            subscribed(first, topic, ledger);
            ledger.publishAll(first.publisher(topic, Codec.utf8()).build(), "m-", 20, 3_000, 250);
        }
        try (Switchboard second = switchboard()) {
            second.subscriber(topic, Codec.utf8()).group("g").subscribe(ledger);
            ledger.awaitAll(TIMEOUT);
            ledger.report("application=closed-and-reopened");
        }
    }

    @Test
    @DisplayName("two applications share the forwarding; when one closes while messages wait, the other forwards them all")
    void aClosedReplicasShareMoves() {
        String topic = KafkaTestSupport.topic("delay-fleet");
        DelayLedger ledger = new DelayLedger("replica-closed");
        try (Switchboard survivor = switchboard()) {
            subscribed(survivor, topic, ledger);
            try (Switchboard leaving = switchboard()) {
                subscribed(leaving, topic, ledger);
                ledger.publishAll(leaving.publisher(topic, Codec.utf8()).build(), "m-", 20, 2_500, 200);
            }
            ledger.awaitAll(TIMEOUT);
            ledger.report("replicas=2 closed=1");
        }
    }

    @Test
    @DisplayName("delayed messages survive a broker restart while they wait, some coming due while it is down; none early")
    void survivesABrokerRestart() {
        String topic = KafkaTestSupport.topic("delay-broker");
        DelayLedger ledger = new DelayLedger("broker-restart");
        try (Switchboard sb = switchboard()) {
            subscribed(sb, topic, ledger);
            ledger.publishAll(sb.publisher(topic, Codec.utf8()).build(), "m-", 20, 1_500, 400);
            long stoppedAt = System.currentTimeMillis();
            broker.stop();
            // down for 3 s: the first messages come due while it is, and are forwarded once it is back
            await().pollDelay(OUTAGE).atMost(OUTAGE.plusSeconds(1)).until(() -> true);
            broker.restart();
            long downMillis = System.currentTimeMillis() - stoppedAt;
            ledger.awaitAll(TIMEOUT);
            ledger.report("broker=stopped-and-restarted down_ms=" + downMillis + " first_due_after_stop_ms="
                    + (ledger.firstDue() - stoppedAt));
        }
    }

    @Test
    @DisplayName("an EXACTLY_ONCE subscription's forwarder forwards in transactions: each delayed message once in the topic")
    void exactlyOnceForwarding() {
        String topic = KafkaTestSupport.topic("delay-eos");
        DelayLedger ledger = new DelayLedger("exactly-once");
        try (Switchboard sb = KafkaTestSupport.switchboard()) {
            sb.subscriber(topic, Codec.utf8()).group("g").delivery(Delivery.EXACTLY_ONCE).subscribe(ledger).ready()
                    .toCompletableFuture().join();
            ledger.publishAll(sb.publisher(topic, Codec.utf8()).delivery(Delivery.EXACTLY_ONCE).build(), "m-", 10, 1_500, 150);
            ledger.awaitAll(TIMEOUT);
            List<String> inTopic = KafkaTestSupport.values(topic, 4, true);
            ledger.report("delivery=EXACTLY_ONCE forwarded=" + inTopic.size());
            assertThat(inTopic).as("read_committed records in the destination").hasSize(10).doesNotHaveDuplicates();
        }
    }

    @Test
    @DisplayName("a forwarder starts once the destination has a delay topic, and its thread ends with the last subscription here")
    void forwarderStopsWithTheLastSubscription() {
        String topic = KafkaTestSupport.topic("delay-life");
        String thread = "switchboard-kafka[kafka]-delay-" + topic;
        try (Switchboard sb = switchboard()) {
            Subscription a = sb.subscriber(topic, Codec.utf8()).group("a").subscribe((m, c) -> { });
            Subscription b = sb.subscriber(topic, Codec.utf8()).group("b").subscribe((m, c) -> { });
            a.ready().toCompletableFuture().join();
            b.ready().toCompletableFuture().join();
            assertThat(threads(thread)).as("no forwarder while the destination has no delay topic").isZero();
            new DelayLedger("life").publish(sb.publisher(topic, Codec.utf8()).build(), "m", Duration.ofSeconds(30)).join();
            await().atMost(TIMEOUT).until(() -> threads(thread) == 1);
            assertThat(threads(thread)).as("one forwarder for both groups").isEqualTo(1);
            a.close();
            assertThat(threads(thread)).as("after the first of two subscriptions closed").isEqualTo(1);
            b.close();
            await().atMost(TIMEOUT).until(() -> threads(thread) == 0);
        }
    }

    @Test
    @DisplayName("a forwarder starts for a delay topic another application made, found by listing the topics")
    void forwarderStartsForADelayTopicMadeElsewhere() {
        String topic = KafkaTestSupport.topic("delay-elsewhere");
        String thread = "switchboard-kafka[kafka]-delay-" + topic;
        DelayLedger ledger = new DelayLedger("made-elsewhere");
        try (Switchboard subscriber = switchboard(); Switchboard publisher = switchboard()) {
            subscribed(subscriber, topic, ledger);
            ledger.publishAll(publisher.publisher(topic, Codec.utf8()).build(), "m-", 5, 1_000, 200);
            // the publishing application subscribes nothing, so only the subscriber's forwarder moves them
            await().atMost(TIMEOUT).until(() -> threads(thread) == 1);
            ledger.awaitAll(TIMEOUT);
            ledger.report("forwarder=discovered");
        }
    }

    /** Group {@code g} of the topic, once ready. */
    private static Subscription subscribed(Switchboard sb, String topic, DelayLedger ledger) {
        Subscription subscription = sb.subscriber(topic, Codec.utf8()).group("g").subscribe(ledger);
        subscription.ready().toCompletableFuture().join();
        return subscription;
    }

    private static long threads(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).count();
    }
}
