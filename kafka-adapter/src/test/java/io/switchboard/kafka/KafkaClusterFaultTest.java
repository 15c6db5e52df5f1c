package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.fault.ExactlyOnceCrash;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.kafka.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At-least-once on a three-node Kafka cluster (testkit's {@link KafkaCluster}: replication factor 3,
 * {@code min.insync.replicas=2}, each node a JVM of its own) through node faults: a keyed stream is
 * published and consumed while a node fails; every acknowledged message must be consumed, and what
 * was delivered must keep each key's order. Each case prints its history line
 * ({@code fault=.. broker=kafka nodes=3 published=.. lost=.. reordered=.. stall_ms=..}), where
 * {@code stall_ms} is the longest time between two acknowledgements: how long publishing stalled.
 */
@Tag("cluster")
@Tag("fault")
@DisplayName("Kafka on a three-node cluster through node faults")
class KafkaClusterFaultTest {

    private static final Logger log = LoggerFactory.getLogger(KafkaClusterFaultTest.class);
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final int KEYS = 30;
    private static final int RATE = 200;
    private static final Duration SETTLE = Duration.ofSeconds(90);

    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(NODES);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @DisplayName("the partition leader killed with kill -9 mid-stream, a consumer joining the group meanwhile: nothing acknowledged lost")
    void leaderKilled() {
        FaultLedger ledger = stream("leader-kill", (topic, sb, ledgerOf) -> {
            int leader = cluster.leaderOf(topic, 0);
            cluster.kill(leader);
            // a rebalance during the fault: a second consumer of the group joins while the node is down
            try (Subscription joining = subscribe(sb, topic, ledgerOf)) {
                holdUnderTraffic(ledgerOf, 5);
                cluster.restart(leader);
            }
            cluster.awaitInSync(List.of(topic));
        });
        assertHistory(ledger);
    }

    @Test
    @DisplayName("the partition leader frozen for 20 s (cut off from its peers and clients) while a consumer joins and leaves: nothing acknowledged lost")
    void leaderFrozen() {
        FaultLedger ledger = stream("leader-freeze-20s", (topic, sb, ledgerOf) -> {
            int leader = cluster.leaderOf(topic, 0);
            cluster.freeze(leader);
            // a rebalance during the fault: a second consumer of the group joins, then leaves, while the node is frozen
            try (Subscription joining = subscribe(sb, topic, ledgerOf)) {
                hold(Duration.ofSeconds(20));
            } finally {
                cluster.thaw(leader);
            }
            cluster.awaitInSync(List.of(topic));
        });
        assertHistory(ledger);
    }

    @Test
    @DisplayName("a rolling restart of all three nodes under load, a consumer joining and leaving at each: nothing acknowledged lost")
    void rollingRestart() {
        FaultLedger ledger = stream("rolling-restart", (topic, sb, ledgerOf) -> {
            for (int node : cluster.nodes()) {
                cluster.stop(node);
                // a rebalance while each node is down: a consumer of the group joins, then leaves
                try (Subscription joining = subscribe(sb, topic, ledgerOf)) {
                    holdUnderTraffic(ledgerOf, 2);
                }
                cluster.restart(node);
                cluster.awaitInSync(List.of(topic));
            }
        });
        assertHistory(ledger);
    }

    @Test
    @DisplayName("the exactly-once JDBC recipe: its consumer killed mid-transaction and the partition leader killed with it")
    void exactlyOnceWithLeaderKill() throws Exception {
        String destination = "cl-eos-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> properties = Map.of("kafka.bootstrap.servers", cluster.bootstrapServers(),
                "switchboard.partitions", Integer.toString(PARTITIONS));
        Path dir = Files.createTempDirectory("kafka-cluster-eos");
        int[] killed = {-1};
        try (Switchboard sb = Switchboard.builder().broker("kafka").properties(properties).build()) {
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            String line = ExactlyOnceCrash.run("kafka", properties, properties, destination, publisher, dir, () -> {
                killed[0] = cluster.leaderOf(destination, 0);
                cluster.kill(killed[0]);
            });
            log.warn("{} nodes={} (the leader of partition 0, node {}, killed with the consumer)", line, NODES, killed[0]);
        } finally {
            if (killed[0] > 0) {
                cluster.restart(killed[0]);
                cluster.awaitInSync(List.of(destination));
            }
            org.apache.kafka.common.utils.Utils.delete(dir.toFile());
        }
    }

    /** A fault injected while the stream runs. */
    private interface Fault {
        void inject(String topic, Switchboard sb, FaultLedger ledger);
    }

    /**
     * Publishes a keyed stream at {@link #RATE} msg/s with one consumer of group {@code g} handling
     * it; after 3 s of traffic injects the fault, goes on 3 s after it, then stops publishing and
     * waits until everything acknowledged was consumed (or {@link #SETTLE} passed).
     */
    private static FaultLedger stream(String fault, Fault inject) {
        String topic = "cl-" + fault + "-" + UUID.randomUUID().toString().substring(0, 8);
        FaultLedger ledger = new FaultLedger(fault, "kafka");
        AtomicBoolean publishing = new AtomicBoolean(true);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Switchboard sb = Switchboard.builder().broker("kafka").property("kafka.bootstrap.servers", cluster.bootstrapServers())
                .property("switchboard.partitions", Integer.toString(PARTITIONS))
                .property("kafka.reconnect.backoff.max.ms", "500").property("kafka.retry.backoff.max.ms", "500").build();
                Subscription consumer = subscribe(sb, topic, ledger)) {
            Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            thread.execute(() -> {
                long start = System.nanoTime();
                long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
                for (int i = 0; publishing.get(); i++) {
                    String key = "k-" + (i % KEYS);
                    String payload = key + ":" + i;
                    ledger.track(key, payload, () -> publisher.publish(Message.of(key, payload)));
                    LockSupport.parkNanos(start + (i + 1) * interval - System.nanoTime());
                }
            });
            holdUnderTraffic(ledger, 3);
            inject.inject(topic, sb, ledger);
            holdUnderTraffic(ledger, 3);
            publishing.set(false);
            awaitQuietly(() -> ledger.ackedCount() + ledger.failedCount() == ledger.publishedCount());
            awaitQuietly(ledger::nothingLost);
        } finally {
            publishing.set(false);
            thread.shutdownNow();
        }
        String line = ledger.line(NODES);
        log.warn(line);
        System.out.println(line + " (failed publishes " + ledger.failedCount() + ")");
        return ledger;
    }

    private static Subscription subscribe(Switchboard sb, String topic, FaultLedger ledger) {
        return sb.subscriber(topic, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((message, context) -> ledger.consumed(message.key(), message.payload()));
    }

    private static void assertHistory(FaultLedger ledger) {
        assertThat(ledger.ackedCount()).as(ledger.line(NODES)).isGreaterThan(RATE * 4);
        assertThat(ledger.lostCount()).as("acknowledged but never consumed: " + ledger.line(NODES)).isZero();
        assertThat(ledger.reorderedCount()).as("per-key order of what was delivered: " + ledger.line(NODES)).isZero();
        assertThat(ledger.unexpectedCount()).as("consumed but never published: " + ledger.line(NODES)).isZero();
    }

    /** Lets the stream run until {@code seconds} seconds' worth of messages more were acknowledged, or 60 s passed. */
    private static void holdUnderTraffic(FaultLedger ledger, int seconds) {
        int target = ledger.ackedCount() + RATE * seconds;
        awaitQuietly(() -> ledger.ackedCount() >= target);
    }

    /** Holds a fault for {@code duration}: the fault's length, not a wait for a condition. */
    private static void hold(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            LockSupport.parkNanos(end - System.nanoTime());
        }
    }

    private static void awaitQuietly(BooleanSupplier condition) {
        try {
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            // the assertions say what is missing, with the ledger's figures
        }
    }
}
