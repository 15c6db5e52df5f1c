package io.switchboard.testkit.rocketmq;

import io.switchboard.testkit.fault.ChildJvmCluster;
import io.switchboard.testkit.fault.ChildJvms;
import io.switchboard.testkit.fault.NetworkNamespaces;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.rocketmq.common.ControllerConfig;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.controller.ControllerManager;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replicated RocketMQ 5.5.0 deployment on this machine, for cluster fault tests: RocketMQ 5's
 * <em>controller mode</em> (automatic master-slave failover, RIP-44), not DLedger commit logs. One
 * broker group of three brokers (each a JVM of its own, {@link RocketMqNodeMain}, so that a test
 * can kill, freeze, stop and restart it), replicating the group's commit log from the master to
 * two slaves; a name server and a controller (one DLedger peer) in this JVM. When the master dies,
 * the controller elects a new one from the SyncStateSet, the replicas that have every message
 * acknowledged so far ({@code allAckInSyncStateSet}, unclean election off).
 *
 * <pre>{@code
 * try (RocketMqCluster cluster = RocketMqCluster.start(3)) {
 *     String nameServer = cluster.nameServerAddress();
 *     int master = cluster.master();
 *     cluster.kill(master);
 *     cluster.awaitMasterOtherThan(master);
 *     cluster.restart(master);
 *     cluster.awaitInSync();
 * }
 * }</pre>
 *
 * <p>The name server and the controller are not faulted here: the tests are about the brokers.
 * In production the controller runs as three peers (Raft), so that it survives one.
 */
public final class RocketMqCluster extends ChildJvmCluster {

    private static final Logger log = LoggerFactory.getLogger(RocketMqCluster.class);
    private static final String HOST = "127.0.0.1";
    private static final String ANY_ADDRESS = "0.0.0.0";
    /** The broker group's name, and the cluster's. */
    public static final String BROKER_NAME = "broker-a";
    /** The name of the cluster the brokers belong to. */
    public static final String CLUSTER_NAME = "switchboard-cluster";
    private static final Duration READY = Duration.ofSeconds(120);

    private final Path directory;
    private final Map<Integer, String> addresses = new LinkedHashMap<>();
    /** Set when a wait failed and its message names the directory: close() leaves the logs. */
    private volatile boolean keepFiles;
    private NamesrvController nameServer;
    private ControllerManager controller;
    private String nameServerAddress;

    private RocketMqCluster(Path directory) {
        super(new ChildJvms("RocketMQ broker", directory, RocketMqNodeMain.class,
                List.of("-Xmx320m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        // no self-signed certificate generated at every start (seconds each, files left in tmp)
                        "-Dtls.server.mode=disabled", "-Drocketmq.log.root=" + directory.resolve("logs"), "-Duser.home=" + directory.resolve("home"))));
        this.directory = directory;
    }

    /**
     * Starts a name server and a controller here and {@code nodes} brokers (3 for the fault tests)
     * in child JVMs, and waits until one is master and every broker is in the SyncStateSet.
     *
     * @param nodes how many brokers
     * @return the running cluster
     * @throws IllegalStateException naming the node logs when the cluster does not come up in 2 minutes
     */
    public static RocketMqCluster start(int nodes) {
        RocketMqCluster cluster;
        try {
            cluster = new RocketMqCluster(Files.createTempDirectory("switchboard-rocketmq-cluster"));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make a temporary directory for a RocketMQ cluster", e);
        }
        try {
            NetworkNamespaces network = cluster.partitionable(NetworkNamespaces.create(nodes));
            // the controller gives brokers its leader's address from its peer list: one every namespace reaches
            cluster.startControlPlane(network.hostAddress(1));
            int nameServerPort = cluster.nameServer.getNettyServerConfig().getListenPort();
            int controllerPort = cluster.controller.getNettyServerConfig().getListenPort();
            for (int id = 1; id <= nodes; id++) {
                FreePorts.Reserved ports = FreePorts.forRocketMq();
                String host = network.hostAddress(id);
                cluster.addresses.put(id, network.nodeAddress(id) + ":" + ports.broker());
                cluster.jvms.define(id, List.of(cluster.directory.resolve("node-" + id).toString(), CLUSTER_NAME, BROKER_NAME,
                        host + ":" + nameServerPort, host + ":" + controllerPort, Integer.toString(ports.broker()),
                        Integer.toString(ports.ha()), network.nodeAddress(id)), network.commandPrefix(id));
                cluster.jvms.launch(id);
            }
            // a fresh group under load (a -T 2 CI run, another module's cluster beside it) once stayed out of sync for 2 min
            // (ci-l): give it a minute, then restart the master as for the rejected-SyncStateSet loop, then the full wait
            cluster.awaitInSyncOrRestartMaster(Duration.ofSeconds(60));
            log.info("RocketMQ cluster of {} brokers up, master node {}, name server {} (data and logs in {})", nodes,
                    cluster.master(), cluster.nameServerAddress, cluster.directory);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void startControlPlane(String controllerHost) {
        FreePorts.Reserved ports = FreePorts.forRocketMq();
        try {
            // on every address: each broker reaches it from its own network namespace
            nameServer = RocketMqNodes.startNameServer(directory.resolve("namesrv"), ANY_ADDRESS, ports.nameServer());
        } catch (Exception e) {
            throw new IllegalStateException("Could not start the RocketMQ name server on port " + ports.nameServer(), e);
        }
        nameServerAddress = HOST + ":" + ports.nameServer();
        Path dir = directory.resolve("controller");
        ControllerConfig config = new ControllerConfig();
        config.setRocketmqHome(dir.toString());
        config.setConfigStorePath(dir.resolve("controller.properties").toString());
        config.setControllerStorePath(dir.resolve("store").toString());
        config.setControllerDLegerGroup("switchboard");
        config.setControllerDLegerPeers("n0-" + controllerHost + ":" + ports.ha());
        config.setControllerDLegerSelfId("n0");
        config.setMappedFileSize(4 * 1024 * 1024);
        config.setEnableElectUncleanMaster(false);
        config.setNotifyBrokerRoleChanged(true);
        config.setScanNotActiveBrokerInterval(1_000);
        NettyServerConfig server = new NettyServerConfig();
        server.setBindAddress(ANY_ADDRESS);
        server.setListenPort(ports.broker());
        controller = new ControllerManager(config, server, new NettyClientConfig());
        if (!controller.initialize()) {
            throw new IllegalStateException("The RocketMQ controller did not initialize in " + dir);
        }
        controller.start();
        awaitUntil(() -> controller.getController().isLeaderState(), "The RocketMQ controller did not become leader");
    }

    /** {@return the name server's address, for {@code rocketmq.namesrv-addr}} */
    public String nameServerAddress() {
        return nameServerAddress;
    }

    /** {@return the controller's address in this JVM's network} */
    public String controllerAddress() {
        return HOST + ":" + controller.getNettyServerConfig().getListenPort();
    }

    /** {@return the node ids, from 1} */
    public Set<Integer> nodes() {
        return addresses.keySet();
    }

    /**
     * {@return node {@code id}'s broker address, {@code host:port}}
     *
     * @param id the node id
     */
    public String addressOf(int id) {
        return addresses.get(id);
    }

    /** {@return the node the controller has as master now, or -1} */
    public int master() {
        BrokerReplicasInfo.ReplicasInfo info = replicas();
        return info == null ? -1 : nodeAt(info.getMasterAddress());
    }

    /** {@return the nodes in the SyncStateSet now} */
    public Set<Integer> inSync() {
        BrokerReplicasInfo.ReplicasInfo info = replicas();
        return info == null ? Set.of() : info.getInSyncReplicas().stream()
                .map(r -> nodeAt(r.getBrokerAddress())).collect(Collectors.toSet());
    }






    /**
     * Starts node {@code id} again on its store and ports (it rejoins as a slave and catches up).
     *
     * @param id the node id
     */
    public void restart(int id) {
        jvms.launch(id);
        log.info("RocketMQ broker {} starting again", id);
    }

    /**
     * Waits until there is a master, every node is in the SyncStateSet, and the name server routes
     * to that master (clients find it).
     */
    public void awaitInSync() {
        awaitUntil(() -> {
            int master = master();
            return master > 0 && inSync().size() == addresses.size() && routedMaster() == master;
        }, "Not every RocketMQ broker is in the SyncStateSet, or the name server does not route to the master");
    }

    /**
     * Like {@link #awaitInSync()}, but when the group has not converged within {@code patience},
     * restarts the master the controller has (as an operator would) and waits again. Seen with
     * RocketMQ 5.5.0 after a master was frozen for 20 s and thawed: the new master kept asking the
     * controller to change its SyncStateSet under its predecessor's broker id, rejected each time
     * ({@code Rejecting alter syncStateSet request because the current leader is:{2}, not {1}}), for
     * four minutes, the thawed broker and the other slave outside the SyncStateSet meanwhile.
     *
     * @param patience how long to wait before restarting the master
     * @return the node restarted, or -1 when the group converged by itself
     */
    public int awaitInSyncOrRestartMaster(Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            int master = master();
            if (master > 0 && inSync().size() == addresses.size() && routedMaster() == master) {
                return -1;
            }
            jvms.checkNoneExited();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
        }
        int stuck = master();
        log.warn("RocketMQ group did not converge within {} (master node {}, in sync {}); restarting the master",
                patience, stuck, inSync());
        if (stuck > 0) {
            jvms.stop(stuck);
            jvms.launch(stuck);
        }
        try {
            awaitInSync();
        } catch (IllegalStateException notYet) {
            // a slave left outside the SyncStateSet by the same loop may stay out after the master's restart: restart
            // each node still outside once, then wait again (the second wait fails the test with its own message)
            Set<Integer> in = inSync();
            log.warn("RocketMQ group still not converged after restarting its master (in sync {}); restarting the rest", in);
            for (Integer node : addresses.keySet()) {
                if (!in.contains(node)) {
                    jvms.stop(node);
                    jvms.launch(node);
                }
            }
            awaitInSync();
        }
        return stuck;
    }

    /**
     * Waits until the controller has a master other than {@code node} and the name server routes to it; returns it.
     *
     * @param node the node that was master
     * @return the new master
     */
    public int awaitMasterOtherThan(int node) {
        awaitUntil(() -> {
            int master = master();
            return master > 0 && master != node && routedMaster() == master;
        }, "The RocketMQ controller did not elect a master other than node " + node);
        return master();
    }

    /** {@return the node the name server has registered as the group's master (broker id 0), or -1} */
    public int routedMaster() {
        BrokerData group = nameServer.getRouteInfoManager().getAllClusterInfo().getBrokerAddrTable().get(BROKER_NAME);
        return group == null ? -1 : nodeAt(group.getBrokerAddrs().get(MixAll.MASTER_ID));
    }

    /** Stops every broker (kill -9), the controller and the name server, and deletes the data. Idempotent. */
    @Override
    public synchronized void close() {
        // the controller first: with it up, brokers going away make it try (and fail, ERROR) to elect a master
        if (controller != null) {
            controller.shutdown();
            controller = null;
        }
        jvms.killAll();
        closeNetwork();
        if (nameServer != null) {
            nameServer.shutdown();
            nameServer = null;
        }
        if (keepFiles || Boolean.getBoolean("switchboard.cluster.keep")) {
            log.info("RocketMQ cluster's data and logs kept in {} ({})", directory,
                    keepFiles ? "a wait for the group failed" : "switchboard.cluster.keep");
            return;
        }
        try (var paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.warn("Could not delete the RocketMQ cluster's directory {}", directory, e);
        }
    }

    @Override
    public String toString() {
        return "RocketMqCluster[" + nameServerAddress + "]";
    }

    private int nodeAt(String address) {
        if (address == null) {
            return -1;
        }
        return addresses.entrySet().stream().filter(e -> e.getValue().equals(address)).map(Map.Entry::getKey)
                .findFirst().orElse(-1);
    }

    /** The broker group's replicas as the controller has them, or null while it has none. */
    private BrokerReplicasInfo.ReplicasInfo replicas() {
        try {
            RemotingCommand response = controller.getController().getSyncStateData(new ArrayList<>(List.of(BROKER_NAME)))
                    .get(5, TimeUnit.SECONDS);
            if (response == null || response.getCode() != ResponseCode.SUCCESS || response.getBody() == null) {
                return null;
            }
            return RemotingSerializable.decode(response.getBody(), BrokerReplicasInfo.class).getReplicasInfoTable()
                    .get(BROKER_NAME);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while asking the RocketMQ controller", e);
        }
    }

    /** What the controller and the name server say, for a failure's message. */
    private String state() {
        try {
            return "controller: master node " + master() + ", in sync " + inSync() + "; name server routes node "
                    + routedMaster() + "; nodes " + addresses;
        } catch (RuntimeException e) {
            return "state unknown: " + e;
        }
    }

    private interface Check {
        boolean holds();
    }

    private void awaitUntil(Check check, String failure) {
        long deadline = System.nanoTime() + READY.toNanos();
        while (!check.holds()) {
            jvms.checkNoneExited();
            if (System.nanoTime() > deadline) {
                keepFiles = true; // the message points at them
                throw new IllegalStateException(failure + " within " + READY + " (" + state() + "); broker logs kept in "
                        + directory);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
        }
    }
}
