package io.switchboard.rocketmq.internal.provision;

import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates topics on every master broker of the cluster ({@code rocketmq.cluster}, default every
 * master the name server knows) with the asked number of queues, and returns only when the name
 * server serves the route, so publishers and subscribers created next see every queue.
 * Deleting a topic also deletes the consumer groups this adapter named after it and their retry
 * topics.
 */
public final class RocketMqProvisioner implements Provisioner {

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Producers producers;
    private static final Logger log = LoggerFactory.getLogger(RocketMqProvisioner.class);

    private final RocketMqSettings settings;
    private volatile boolean replicationChecked;

    public RocketMqProvisioner(Producers producers, RocketMqSettings settings) {
        this.producers = producers;
        this.settings = settings;
    }

    @Override
    public void ensureDestination(DestinationSpec spec) {
        String topic = spec.name();
        try {
            checkReplication();
            if (route(topic) != null) {
                return;
            }
            List<BrokerData> groups = groups();
            TopicConfig config = new TopicConfig(topic, spec.partitions(), spec.partitions(),
                    PermName.PERM_READ | PermName.PERM_WRITE);
            for (BrokerData group : groups) {
                api().createTopic(group.getBrokerAddrs().get(MixAll.MASTER_ID), TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
                        config, timeoutMillis());
                createOnSlaves(group, config);
            }
            awaitRoute(topic, groups.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while creating RocketMQ topic '" + topic + "'", e);
        } catch (SwitchboardException e) {
            throw e;
        } catch (Exception e) {
            if (unreachable(e)) {
                throw new SwitchboardException("RocketMQ name server " + settings.nameServer() + " (or its broker) is not reachable"
                        + " while creating topic '" + topic + "': " + e.getMessage() + "; start the name server and broker, or "
                        + "correct rocketmq.namesrv-addr", e);
            }
            throw new SwitchboardException("RocketMQ refused to create topic '" + topic + "' with " + spec.partitions()
                    + " queues (name server " + settings.nameServer() + "): " + e.getMessage()
                    + "; check the broker's permissions, or create the topic with mqadmin updateTopic", e);
        }
    }

    @Override
    public void deleteDestination(String name) {
        try {
            TopicRouteData route = route(name);
            if (route == null) {
                return;
            }
            Set<String> groups = new HashSet<>();
            for (BrokerData broker : route.getBrokerDatas()) {
                String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
                if (master != null) {
                    groups.addAll(api().queryTopicConsumeByWho(master, name, timeoutMillis()).getGroupList());
                    api().deleteTopicInBroker(master, name, timeoutMillis());
                }
            }
            deleteInNameServers(name);
            for (String group : groups) {
                if (group.endsWith("_" + name)) {
                    deleteGroup(group, route);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while deleting RocketMQ topic '" + name + "'", e);
        } catch (Exception e) {
            throw new SwitchboardException("Could not delete RocketMQ topic '" + name + "' (name server "
                    + settings.nameServer() + "): " + e.getMessage(), e);
        }
    }

    private void deleteGroup(String group, TopicRouteData route) throws Exception {
        String retryTopic = MixAll.getRetryTopic(group);
        for (BrokerData broker : route.getBrokerDatas()) {
            String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (master != null) {
                api().deleteSubscriptionGroup(master, group, true, timeoutMillis());
                api().deleteTopicInBroker(master, retryTopic, timeoutMillis());
            }
        }
        deleteInNameServers(retryTopic);
    }

    private void deleteInNameServers(String topic) throws Exception {
        for (String nameServer : settings.nameServer().split(";")) {
            if (!nameServer.isBlank()) {
                api().deleteTopicInNameServer(nameServer.trim(), topic, timeoutMillis());
            }
        }
    }

    /** True when the failure is a connection failure or time-out, not a refusal. */
    static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.rocketmq.remoting.exception.RemotingConnectException
                    || t instanceof org.apache.rocketmq.remoting.exception.RemotingTimeoutException
                    || t instanceof org.apache.rocketmq.remoting.exception.RemotingSendRequestException
                    || t instanceof java.net.ConnectException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * Once per adapter: for each broker group with slaves, asks its master for its settings and
     * reports (as {@code switchboard.cluster-check} says) one that acknowledges a message before its
     * slaves have it. Single-master groups have nothing to replicate and are not checked.
     */
    private void checkReplication() throws Exception {
        if (replicationChecked) {
            return;
        }
        ClusterInfo clusters = api().getBrokerClusterInfo(timeoutMillis());
        boolean complete = true;
        for (BrokerData group : clusters.getBrokerAddrTable().values()) {
            String master = group.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (master == null || group.getBrokerAddrs().size() < 2
                    || (settings.cluster() != null && !settings.cluster().equals(group.getCluster()))) {
                continue;
            }
            Properties brokerSettings;
            try {
                brokerSettings = api().getBrokerConfig(master, timeoutMillis());
            } catch (Exception e) {
                // a master that does not answer now (failing over, frozen) must not fail a subscription: check it next time
                log.warn("Could not read the settings of RocketMQ broker group '{}' (master {}) to check its replication: {}; "
                        + "checking again with the next destination", group.getBrokerName(), master, e.toString());
                complete = false;
                continue;
            }
            Optional<String> problem = replicationProblem(group.getBrokerName(), group.getBrokerAddrs().size(), brokerSettings);
            if (problem.isPresent()) {
                settings.clusterCheck().report(log, "RocketMQ (instance '" + settings.instanceName() + "'): " + problem.get());
            }
        }
        replicationChecked = complete;
    }

    /**
     * What keeps broker group {@code group} (of {@code replicas} brokers, master settings
     * {@code master}) from keeping an acknowledged message through the loss of its master, with
     * the fix; empty when nothing does.
     */
    static Optional<String> replicationProblem(String group, int replicas, Properties master) {
        if (Boolean.parseBoolean(master.getProperty("enableControllerMode", "false"))) {
            if (!Boolean.parseBoolean(master.getProperty("allAckInSyncStateSet", "false"))) {
                return Optional.of("broker group '" + group + "' (" + replicas + " brokers, controller mode) has "
                        + "allAckInSyncStateSet=false: its master acknowledges a message before every replica in the "
                        + "SyncStateSet has it, and a failover can lose it; set allAckInSyncStateSet=true and "
                        + "minInSyncReplicas=2 on its brokers");
            }
            int minInSync = Integer.parseInt(master.getProperty("minInSyncReplicas", "1").trim());
            if (minInSync < 2) {
                return Optional.of("broker group '" + group + "' (" + replicas + " brokers, controller mode) has "
                        + "minInSyncReplicas=" + minInSync + ": when its slaves fall behind, the master acknowledges messages "
                        + "only it has, and they are lost with it; set minInSyncReplicas=2 on its brokers");
            }
            return Optional.empty();
        }
        String role = master.getProperty("brokerRole", "ASYNC_MASTER").trim();
        if (!role.equals("SYNC_MASTER")) {
            return Optional.of("broker group '" + group + "' (" + replicas + " brokers) has brokerRole=" + role
                    + " on its master: it acknowledges a message before its slaves have it, and loses it if the master's "
                    + "disk is lost; set brokerRole=SYNC_MASTER (or run the group in controller mode with "
                    + "allAckInSyncStateSet=true)");
        }
        return Optional.empty();
    }

    /** The topic's route, or null when the name server does not know the topic. */
    private TopicRouteData route(String topic) throws Exception {
        try {
            return api().getTopicRouteInfoFromNameServer(topic, timeoutMillis(), false);
        } catch (MQClientException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return null;
            }
            throw e;
        }
    }

    /** The broker groups with a master (of the configured cluster, if one is set). */
    private List<BrokerData> groups() throws Exception {
        ClusterInfo clusters = api().getBrokerClusterInfo(timeoutMillis());
        List<BrokerData> groups = new ArrayList<>();
        for (BrokerData broker : clusters.getBrokerAddrTable().values()) {
            String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (master != null && (settings.cluster() == null || settings.cluster().equals(broker.getCluster()))) {
                groups.add(broker);
            }
        }
        if (groups.isEmpty()) {
            throw new SwitchboardException("The RocketMQ name server " + settings.nameServer() + " knows no master broker"
                    + (settings.cluster() == null ? "" : " in cluster '" + settings.cluster() + "' (property "
                    + RocketMqSettings.CLUSTER + ")") + "; start a broker or fix " + RocketMqSettings.NAME_SERVER);
        }
        return groups;
    }

    /**
     * Creates the topic on the group's slaves too. A slave copies its master's topics only every
     * few seconds; one promoted before that copy would not know a topic whose messages it holds, and
     * refuses every pull of it ("topic not exist") for good. A slave that does not answer is left to
     * that copy (logged).
     */
    private void createOnSlaves(BrokerData group, TopicConfig config) {
        for (Map.Entry<Long, String> broker : group.getBrokerAddrs().entrySet()) {
            if (broker.getKey() == MixAll.MASTER_ID) {
                continue;
            }
            try {
                api().createTopic(broker.getValue(), TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, config, timeoutMillis());
            } catch (Exception e) {
                log.warn("Could not create topic '{}' on slave {} of RocketMQ broker group '{}': {}; it copies the topic "
                        + "from its master within seconds, and a failover before then leaves the topic unknown to it",
                        config.getTopicName(), broker.getValue(), group.getBrokerName(), e.toString());
            }
        }
    }

    private void awaitRoute(String topic, int brokers) throws Exception {
        long deadline = System.nanoTime() + settings.adminTimeout().toNanos();
        while (true) {
            TopicRouteData route = route(topic);
            if (route != null && writableBrokers(route) >= brokers) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SwitchboardException("RocketMQ topic '" + topic + "' was created but the name server "
                        + settings.nameServer() + " did not serve its route within " + settings.adminTimeout()
                        + "; raise " + RocketMqSettings.ADMIN_TIMEOUT);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    private static int writableBrokers(TopicRouteData route) {
        int brokers = 0;
        for (QueueData queue : route.getQueueDatas()) {
            if (queue.getWriteQueueNums() > 0 && PermName.isWriteable(queue.getPerm())) {
                brokers++;
            }
        }
        return brokers;
    }

    private MQClientAPIImpl api() {
        return producers.api();
    }

    private long timeoutMillis() {
        return settings.adminTimeout().toMillis();
    }
}
