package io.switchboard.rocketmq;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.ExactlyOnceCrash;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.fault.FaultStream;
import io.switchboard.testkit.rocketmq.RocketMqCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At-least-once and exactly-once on a replicated RocketMQ deployment (testkit's
 * {@link RocketMqCluster}: controller mode, one broker group of a master and two slaves, each a JVM
 * of its own in a network namespace of its own (so that one can be cut off), {@code allAckInSyncStateSet=true}, {@code minInSyncReplicas=2}) through broker
 * faults: a keyed stream is published and consumed (orderly) while a broker fails; every
 * acknowledged message must be consumed, and what was delivered must keep each key's order
 * (testkit's {@link FaultStream}, which prints each case's history line,
 * {@code fault=.. broker=rocketmq nodes=3 published=.. lost=.. reordered=.. stall_ms=..}).
 */
// a fault case takes up to 70 s here (the 3 min default applies to its @BeforeAll cluster start): room for a slower machine
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("cluster")
@Tag("fault")
@DisplayName("RocketMQ on a three-broker replicated group through broker faults")
class RocketMqClusterFaultTest {

    private static final Logger log = LoggerFactory.getLogger(RocketMqClusterFaultTest.class);
    private static final int NODES = 3;

    private static RocketMqCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RocketMqCluster.start(NODES);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Every broker back and in sync before the next case, whatever the last one left behind. */
    @AfterEach
    void heal() {
        for (int node : cluster.nodes()) {
            if (!cluster.isRunning(node)) {
                cluster.restart(node);
            }
            cluster.thaw(node);
            cluster.heal(node);
        }
        converge("before the next case");
    }

    /**
     * How long the group may take to converge by itself before its master is restarted. A group that
     * converges does so well within it (a restarted broker's start, catch-up and return to the
     * SyncStateSet took about 20 s at most in the runs looked at); one stuck in RocketMQ 5.5.0's loop of rejected
     * SyncStateSet changes after a master was isolated (half the runs of the partition case) stayed
     * stuck for minutes, so waiting longer only delays the restart (60 s before: a minute lost per such run).
     */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    /** Waits until the group converged, restarting its master after {@link #PATIENCE} if it did not (printed). */
    private static void converge(String when) {
        int restarted = cluster.awaitInSyncOrRestartMaster(PATIENCE);
        System.out.println(when + ": " + (restarted < 0 ? "the group converged by itself"
                : "the group had not converged within " + PATIENCE.toSeconds() + " s: its master, node " + restarted
                        + ", restarted"));
    }

    @Test
    @DisplayName("the master killed with kill -9 mid-stream, a consumer joining the group meanwhile: nothing acknowledged lost")
    void masterKilled() {
        FaultStream stream = stream();
        FaultLedger ledger = stream.run("master-kill", (destination, sb, ledgerOf) -> {
            int master = cluster.master();
            cluster.kill(master);
            // a rebalance during the fault: a second consumer of the group joins while the broker is down
            try (Subscription joining = stream.subscribe(sb, destination, ledgerOf)) {
                stream.holdUnderTraffic(ledgerOf, 5);
                cluster.restart(master);
                converge("master-kill: after master node " + master + " was started again");
            }
        });
        stream.assertHistory(ledger);
    }

    @Test
    @Tag("extended") // the cut (masterPartitioned) is the partition .ci/run keeps; the freeze runs with -Dsurefire.excludedGroups=none
    @DisplayName("the master frozen for 20 s (cut off from its peers, the controller and the clients) while a consumer joins and leaves: nothing acknowledged lost")
    void masterFrozen() {
        masterIsolated("master-freeze-20s", cluster::freeze, cluster::thaw, "thawed");
    }

    @Test
    @DisplayName("the master cut off from its peers, the controller and the clients for 20 s (it keeps running), while a consumer joins and leaves: nothing acknowledged lost")
    void masterPartitioned() {
        masterIsolated("master-partition-20s", cluster::cut, cluster::heal, "reconnected");
    }

    /** The master isolated for 20 s ({@code isolate}, then {@code restore}) while a consumer joins and leaves. */
    private void masterIsolated(String fault, IntConsumer isolate, IntConsumer restore, String restored) {
        FaultStream stream = stream();
        FaultLedger ledger = stream.run(fault, (destination, sb, ledgerOf) -> {
            int master = cluster.master();
            isolate.accept(master);
            try (Subscription joining = stream.subscribe(sb, destination, ledgerOf)) {
                FaultStream.hold(Duration.ofSeconds(20));
            } finally {
                restore.accept(master);
            }
            converge(fault + ": after master node " + master + " was " + restored);
        });
        stream.assertHistory(ledger);
    }

    @Test
    @DisplayName("a rolling restart of all three brokers under load, a consumer joining and leaving at each: nothing acknowledged lost")
    void rollingRestart() {
        FaultStream stream = stream();
        FaultLedger ledger = stream.run("rolling-restart", (destination, sb, ledgerOf) -> {
            for (int node : cluster.nodes()) {
                cluster.stop(node);
                try (Subscription joining = stream.subscribe(sb, destination, ledgerOf)) {
                    stream.holdUnderTraffic(ledgerOf, 2);
                }
                cluster.restart(node);
                converge("rolling-restart: after node " + node + " was started again");
            }
        });
        stream.assertHistory(ledger);
    }

    @Test
    @DisplayName("the exactly-once JDBC recipe: its consumer killed mid-transaction and the master killed with it")
    void exactlyOnceWithMasterKill() throws Exception {
        String destination = "cl-eos-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> properties = new LinkedHashMap<>(properties());
        properties.put("rocketmq.consume-mode", "concurrently");
        Path dir = Files.createTempDirectory("rocketmq-cluster-eos");
        int[] killed = {-1};
        try (Switchboard sb = Switchboard.builder().broker("rocketmq").properties(properties).build()) {
            sb.provisioning().ensureDestination(DestinationSpec.of(destination, 4));
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            String line = ExactlyOnceCrash.run("rocketmq", properties, properties, destination, publisher, dir, () -> {
                killed[0] = cluster.master();
                cluster.kill(killed[0]);
            });
            log.warn("{} nodes={} (the master, node {}, killed with the consumer)", line, NODES, killed[0]);
        } finally {
            deleteRecursively(dir);
        }
    }

    private static FaultStream stream() {
        return new FaultStream("rocketmq", NODES, properties());
    }

    /** Refuses a broker group that could not keep acknowledged messages: this cluster's must pass. */
    private static Map<String, String> properties() {
        return Map.of("rocketmq.namesrv-addr", cluster.nameServerAddress(), "switchboard.partitions", "4",
                "switchboard.cluster-check", "refuse");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
