package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.ExactlyOnceCrash;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.fault.FaultStream;
import io.switchboard.testkit.kafka.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At-least-once on a three-node Kafka cluster (testkit's {@link KafkaCluster}: replication factor 3,
 * {@code min.insync.replicas=2}, each node a JVM of its own) through node faults: a keyed stream is
 * published and consumed while a node fails; every acknowledged message must be consumed, and what
 * was delivered must keep each key's order (testkit's {@link FaultStream}, which prints each case's
 * history line, {@code fault=.. broker=kafka nodes=3 published=.. lost=.. reordered=.. stall_ms=..}).
 */
// a fault case takes up to 70 s here (the 3 min default applies to its @BeforeAll cluster start): room for a slower machine
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("cluster")
@Tag("fault")
@DisplayName("Kafka on a three-node cluster through node faults")
class KafkaClusterFaultTest {

    private static final Logger log = LoggerFactory.getLogger(KafkaClusterFaultTest.class);
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;

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
    @Tag("extended") // the cut (leaderPartitioned) is the partition .ci/run keeps; the freeze runs with -Dsurefire.excludedGroups=none
    @DisplayName("the partition leader frozen for 20 s (cut off from its peers and clients) while a consumer joins and leaves: nothing acknowledged lost")
    void leaderFrozen() {
        leaderIsolated("leader-freeze-20s", cluster::freeze, cluster::thaw);
    }

    @Test
    @DisplayName("the partition leader cut off from its peers and clients for 20 s (it keeps running) while a consumer joins and leaves: nothing acknowledged lost")
    void leaderPartitioned() {
        leaderIsolated("leader-partition-20s", cluster::cut, cluster::heal);
    }

    /** Partition 0's leader isolated for 20 s ({@code isolate}, then {@code restore}) while a consumer of the group joins and leaves. */
    private void leaderIsolated(String fault, IntConsumer isolate, IntConsumer restore) {
        FaultLedger ledger = stream(fault, (topic, sb, ledgerOf) -> {
            int leader = cluster.leaderOf(topic, 0);
            isolate.accept(leader);
            try (Subscription joining = subscribe(sb, topic, ledgerOf)) {
                hold(Duration.ofSeconds(20));
            } finally {
                restore.accept(leader);
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

    @Test
    @DisplayName("switchboard.cluster-check=refuse: a topic with one replica, or with min.insync.replicas=1, is refused with the fix")
    void underReplicatedTopicsRefused() {
        try (Switchboard sb = Switchboard.builder().broker("kafka").property("kafka.bootstrap.servers", cluster.bootstrapServers())
                .property("switchboard.cluster-check", "refuse").build()) {
            String single = "cl-rf1-" + UUID.randomUUID().toString().substring(0, 8);
            assertThatThrownBy(() -> sb.provisioning().ensureDestination(
                    new DestinationSpec(single, 1, Map.of("replication.factor", "1"))))
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("'" + single + "' has replication factor 1 on a cluster of 3 brokers")
                    .hasMessageContaining("kafka.replication-factor=3");
            String minIsr = "cl-isr1-" + UUID.randomUUID().toString().substring(0, 8);
            assertThatThrownBy(() -> sb.provisioning().ensureDestination(
                    new DestinationSpec(minIsr, 1, Map.of("min.insync.replicas", "1"))))
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("'" + minIsr + "' has 3 replicas but min.insync.replicas=1")
                    .hasMessageContaining("set min.insync.replicas=2");
            // the cluster's defaults (replication factor 3, min.insync.replicas 2) pass
            sb.provisioning().ensureDestination(DestinationSpec.of("cl-ok-" + UUID.randomUUID().toString().substring(0, 8), 1));
        }
    }

    private static FaultLedger stream(String fault, FaultStream.Fault inject) {
        return stream().run(fault, inject);
    }

    private static FaultStream stream() {
        // refuse: a topic that could not keep acknowledged records on this cluster fails the run
        return new FaultStream("kafka", NODES, Map.of("kafka.bootstrap.servers", cluster.bootstrapServers(),
                "switchboard.partitions", Integer.toString(PARTITIONS), "switchboard.cluster-check", "refuse",
                "kafka.reconnect.backoff.max.ms", "500", "kafka.retry.backoff.max.ms", "500"));
    }

    private static Subscription subscribe(Switchboard sb, String topic, FaultLedger ledger) {
        return stream().subscribe(sb, topic, ledger);
    }

    private static void assertHistory(FaultLedger ledger) {
        stream().assertHistory(ledger);
    }

    private static void holdUnderTraffic(FaultLedger ledger, int seconds) {
        stream().holdUnderTraffic(ledger, seconds);
    }

    private static void hold(Duration duration) {
        FaultStream.hold(duration);
    }
}
