package io.switchboard.testkit.kafka;

import io.switchboard.testkit.fault.ChildJvmCluster;
import io.switchboard.testkit.fault.ChildJvms;
import io.switchboard.testkit.fault.NetworkNamespaces;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka cluster of several KRaft nodes on this machine, for cluster fault tests: each node
 * is a combined broker and controller in a JVM of its own ({@link KafkaNodeMain}, started on this
 * JVM's class path), so that a test can kill it ({@code kill -9}), freeze it ({@code SIGSTOP}: to
 * its peers and its clients the node stops answering, as if cut off by the network, while its
 * sockets stay open), cut it off from its peers and clients while it runs (each node is in a
 * network namespace of its own, {@link NetworkNamespaces}, at its own address: needs root), stop it
 * cleanly ({@code SIGTERM}: a controlled shutdown) and restart it on the same data and ports.
 *
 * <p>Settings for a cluster that keeps acknowledged records through the loss of one node: every
 * topic's replication factor is the node count (internal topics too), {@code min.insync.replicas}
 * is one less (2 of 3), unclean leader election stays off (Kafka's default). The rest is Kafka's
 * defaults (failure detection: {@code broker.session.timeout.ms} 9 s, {@code replica.lag.time.max.ms}
 * 30 s), with few threads and a small heap per node so that three fit a 2-core machine:
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.start(3)) {
 *     String bootstrap = cluster.bootstrapServers();
 *     int leader = cluster.leaderOf("orders", 0);
 *     cluster.kill(leader);
 *     cluster.restart(leader);
 *     cluster.awaitInSync("orders");
 * }
 * }</pre>
 */
public final class KafkaCluster extends ChildJvmCluster {

    private static final Logger log = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Duration READY = Duration.ofSeconds(120);

    private final Path directory;
    private final String clusterId = Uuid.randomUuid().toString();
    private final Map<Integer, String> addresses = new LinkedHashMap<>();
    private final String bootstrapServers;
    private Admin admin;

    private KafkaCluster(Path directory, int nodes) {
        super(new ChildJvms("Kafka node", directory, KafkaNodeMain.class,
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")));
        this.directory = directory;
        Map<Integer, Integer> clientPorts = new LinkedHashMap<>();
        Map<Integer, Integer> controllerPorts = new LinkedHashMap<>();
        Set<Integer> taken = new java.util.HashSet<>();
        for (int id = 1; id <= nodes; id++) {
            clientPorts.put(id, freePort(taken));
            controllerPorts.put(id, freePort(taken));
        }
        // each node in a network namespace of its own, at its own address, so that a test can cut one off
        NetworkNamespaces network = partitionable(NetworkNamespaces.create(nodes));
        String voters = controllerPorts.entrySet().stream()
                .map(e -> e.getKey() + "@" + network.nodeAddress(e.getKey()) + ":" + e.getValue())
                .collect(Collectors.joining(","));
        String replicas = Integer.toString(nodes);
        String minIsr = Integer.toString(Math.max(1, nodes - 1));
        for (int id = 1; id <= nodes; id++) {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("process.roles", "broker,controller");
            p.put("node.id", Integer.toString(id));
            p.put("controller.quorum.voters", voters);
            String host = network.nodeAddress(id);
            p.put("listeners", "PLAINTEXT://" + host + ":" + clientPorts.get(id) + ",CONTROLLER://" + host + ":" + controllerPorts.get(id));
            p.put("advertised.listeners", "PLAINTEXT://" + host + ":" + clientPorts.get(id));
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("log.dirs", directory.resolve("node-" + id).toString());
            p.put("default.replication.factor", replicas);
            p.put("min.insync.replicas", minIsr);
            p.put("offsets.topic.replication.factor", replicas);
            p.put("transaction.state.log.replication.factor", replicas);
            p.put("transaction.state.log.min.isr", minIsr);
            p.put("share.coordinator.state.topic.replication.factor", replicas);
            p.put("share.coordinator.state.topic.min.isr", minIsr);
            p.put("unclean.leader.election.enable", "false");
            p.put("offsets.topic.num.partitions", "3");
            p.put("transaction.state.log.num.partitions", "3");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.put("auto.create.topics.enable", "true");
            p.put("num.network.threads", "2");
            p.put("num.io.threads", "2");
            p.put("background.threads", "2");
            p.put("num.replica.fetchers", "1");
            p.put("log.cleaner.threads", "1");
            p.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
            p.put("log.segment.bytes", Integer.toString(16 * 1024 * 1024));
            p.put("log.index.size.max.bytes", Integer.toString(BrokerSettings.INDEX_BYTES)); // see BrokerSettings
            List<String> args = new ArrayList<>();
            args.add(clusterId);
            p.forEach((k, v) -> args.add(k + "=" + v));
            jvms.define(id, args, network.commandPrefix(id));
            addresses.put(id, host + ":" + clientPorts.get(id));
        }
        this.bootstrapServers = String.join(",", addresses.values());
    }

    /**
     * Starts a cluster of {@code nodes} nodes (3 for the fault tests) and waits until every node is
     * registered with the controller.
     *
     * @param nodes how many nodes
     * @return the running cluster
     * @throws IllegalStateException naming the node logs when the cluster does not come up in 2 minutes
     */
    public static KafkaCluster start(int nodes) {
        KafkaCluster cluster;
        try {
            cluster = new KafkaCluster(Files.createTempDirectory("switchboard-kafka-cluster"), nodes);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make a temporary directory for a Kafka cluster", e);
        }
        try {
            for (int id : cluster.jvms.ids()) {
                cluster.jvms.launch(id);
            }
            cluster.awaitNodes(nodes);
            log.info("Kafka cluster of {} nodes up at {} (data and logs in {})", nodes, cluster.bootstrapServers, cluster.directory);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** {@return every node's client address, comma-separated, for {@code bootstrap.servers}} */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** {@return the node ids, from 1} */
    public Set<Integer> nodes() {
        return addresses.keySet();
    }

    /**
     * {@return the leader of a partition now (-1: none), as the cluster's metadata says}
     *
     * @param topic the topic
     * @param partition the partition
     */
    public int leaderOf(String topic, int partition) {
        Node leader = partition(topic, partition).leader();
        return leader == null || leader.isEmpty() ? -1 : leader.id();
    }

    /**
     * {@return the in-sync replicas of a partition now}
     *
     * @param topic the topic
     * @param partition the partition
     */
    public Set<Integer> inSyncReplicas(String topic, int partition) {
        return partition(topic, partition).isr().stream().map(Node::id).collect(Collectors.toSet());
    }





    /**
     * Starts node {@code id} again on its data and ports, and waits until every node is registered.
     *
     * @param id the node id
     */
    public void restart(int id) {
        jvms.launch(id);
        awaitNodes(addresses.size());
        log.info("Kafka node {} started again", id);
    }

    /**
     * Waits until every partition of {@code topics} has every node in sync again.
     *
     * @param topics the topics
     */
    public void awaitInSync(Collection<String> topics) {
        awaitUntil(() -> admin().describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values().stream()
                .flatMap(d -> d.partitions().stream())
                .allMatch(p -> p.isr().size() == addresses.size() && p.leader() != null && !p.leader().isEmpty()),
                "Topics " + topics + " not fully in sync on the Kafka cluster");
    }

    /** Stops every node (kill -9: nothing is kept) and deletes the data. Idempotent. */
    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
            admin = null;
        }
        jvms.killAll();
        closeNetwork();
        try {
            Utils.delete(directory.toFile());
        } catch (IOException e) {
            log.warn("Could not delete the Kafka cluster's directory {}", directory, e);
        }
    }

    @Override
    public String toString() {
        return "KafkaCluster[" + bootstrapServers + "]";
    }

    private void awaitNodes(int count) {
        awaitUntil(() -> {
            jvms.checkNoneExited();
            return admin().describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= count;
        }, "The Kafka cluster at " + bootstrapServers + " did not register " + count + " nodes");
    }

    /** A condition that asks the cluster; an Admin call that fails or times out counts as not yet. */
    private interface ClusterCheck {
        boolean holds() throws ExecutionException, TimeoutException, InterruptedException;
    }

    private void awaitUntil(ClusterCheck check, String failure) {
        long deadline = System.nanoTime() + READY.toNanos();
        while (true) {
            try {
                if (check.holds()) {
                    return;
                }
            } catch (ExecutionException | TimeoutException e) {
                // a node is still coming up
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the Kafka cluster", e);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure + " within " + READY + "; node logs in " + directory);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
        }
    }

    private TopicPartitionInfo partition(String topic, int partition) {
        try {
            TopicDescription d = admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            return d.partitions().get(partition);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot describe topic '" + topic + "' on the Kafka cluster at " + bootstrapServers, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while describing topic '" + topic + "'", e);
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000", AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000"));
        }
        return admin;
    }

    private static int freePort(Set<Integer> taken) {
        while (true) {
            int port = BrokerSettings.freePort();
            if (taken.add(port)) {
                return port;
            }
        }
    }
}
