package io.switchboard.rocketmq.internal.provision;

import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.AclCredentials;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates topics on every master broker of the cluster ({@code rocketmq.cluster}, default every
 * master the name server knows) with the asked number of queues, and returns only when the name
 * server serves the route, so publishers and subscribers created next see every queue.
 * A batch of topics ({@link #ensureDestinations}) takes a fixed number of admin round trips, not
 * one series per topic. Deleting a topic also deletes the consumer groups this adapter named after
 * it and their retry topics.
 *
 * <p>It also makes consumer groups and their retry topics ({@link #consumerExpected}, {@link #ensureGroup}) before their
 * consumers start, all groups expected by then in one batch, so that neither waits for the broker to make them one at
 * a time at each consumer's first heartbeat.
 */
public final class RocketMqProvisioner implements Provisioner {

    private static final Logger log = LoggerFactory.getLogger(RocketMqProvisioner.class);

    private final Producers producers;
    private final RocketMqSettings settings;
    private final TopicAdmin topics;
    private final Function<ConsumerSpec, String> groupOf;
    /** Topics this provisioner created or found: ensured again without a round trip (deleting one forgets it). */
    private final Set<String> ensured = ConcurrentHashMap.newKeySet();
    private volatile boolean replicationChecked;
    /** Consumer groups a consumer was created for, not yet made: the next {@link #ensureGroup} makes them all. */
    private final Set<String> groupsExpected = ConcurrentHashMap.newKeySet();
    /** Consumer groups made or found (or given up on), with their retry topics; deleting a topic forgets its groups. */
    private final Set<String> groupsMade = ConcurrentHashMap.newKeySet();
    /** Held while a batch of groups is made: a consumer whose group is in it waits for it rather than making it again. */
    private final ReentrantLock groupBatch = new ReentrantLock();

    /**
     * @param groupOf the RocketMQ consumer group of a subscription (for {@link #consumerExpected})
     */
    public RocketMqProvisioner(Producers producers, RocketMqSettings settings, Function<ConsumerSpec, String> groupOf) {
        this.groupOf = groupOf;
        this.producers = producers;
        this.settings = settings;
        this.topics = new TopicAdmin(producers, settings);
    }

    @Override
    public void ensureDestination(DestinationSpec spec) {
        ensureDestinations(List.of(spec));
    }

    /**
     * Creates the missing topics of the batch in a fixed number of round trips, whatever their number: one topic list
     * to find the missing ones (topics this provisioner created or found already take none), one cluster info, one
     * request per broker with every missing topic, and one wait for all their routes.
     */
    @Override
    public void ensureDestinations(List<DestinationSpec> specs) {
        Map<String, DestinationSpec> missing = new LinkedHashMap<>();
        for (DestinationSpec spec : specs) {
            if (!ensured.contains(spec.name())) {
                missing.putIfAbsent(spec.name(), spec);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        try {
            checkReplication();
            Set<String> known = topics.known(missing.keySet());
            ensured.addAll(known);
            missing.keySet().removeAll(known);
            if (missing.isEmpty()) {
                return;
            }
            List<BrokerData> groups = topics.groups();
            topics.create(groups, missing.values().stream().map(RocketMqProvisioner::config).toList());
            topics.awaitRoutes(missing.keySet(), groups.size());
            ensured.addAll(missing.keySet());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while creating RocketMQ " + TopicAdmin.named(missing.keySet()), e);
        } catch (SwitchboardException e) {
            throw e;
        } catch (Exception e) {
            String refused = settings.credentials().refusal(e, "create " + withQueues(missing.values()));
            if (refused != null) {
                throw new SwitchboardException(refused + ", or create the " + (missing.size() == 1 ? "topic" : "topics")
                        + " with mqadmin updateTopic", e);
            }
            if (unreachable(e)) {
                throw new SwitchboardException("RocketMQ name server " + settings.nameServer() + " (or its broker) is not reachable"
                        + " while creating " + TopicAdmin.named(missing.keySet()) + ": " + e.getMessage() + "; start the name "
                        + "server and broker, or correct rocketmq.namesrv-addr" + tlsHint(), e);
            }
            throw new SwitchboardException("RocketMQ refused to create " + withQueues(missing.values()) + " (name server "
                    + settings.nameServer() + "): " + e.getMessage() + "; check the broker's permissions, or create the "
                    + (missing.size() == 1 ? "topic" : "topics") + " with mqadmin updateTopic", e);
        }
    }

    /** What to check about TLS when the name server or broker drops the connection. */
    private String tlsHint() {
        return settings.tls()
                ? "; with " + RocketMqSettings.TLS + "=true also check that they take TLS and that this JVM trusts the "
                        + "broker's certificate (tls.client.trustCertPath; a failed handshake is in rocketmq-client's log)"
                : " (a name server that takes TLS only closes connections without it: then set " + RocketMqSettings.TLS
                        + "=true)";
    }

    private static TopicConfig config(DestinationSpec spec) {
        return new TopicConfig(spec.name(), spec.partitions(), spec.partitions(), PermName.PERM_READ | PermName.PERM_WRITE);
    }

    /** {@code topic 'a' with 4 queues}, or {@code topics 'a' (4 queues), 'b' (1 queues)} (the first few). */
    private static String withQueues(Collection<DestinationSpec> specs) {
        if (specs.size() == 1) {
            DestinationSpec spec = specs.iterator().next();
            return "topic '" + spec.name() + "' with " + spec.partitions() + " queues";
        }
        int more = specs.size() - TopicAdmin.NAMED;
        return "topics " + specs.stream().limit(TopicAdmin.NAMED)
                .map(s -> "'" + s.name() + "' (" + s.partitions() + " queues)")
                .collect(Collectors.joining(", ")) + (more > 0 ? " and " + more + " more" : "");
    }

    /** A clustering subscription's group (one with a retry topic) goes into the next batch {@link #ensureGroup} makes. */
    @Override
    public void consumerExpected(ConsumerSpec spec) {
        if (!spec.broadcast()) {
            String group = groupOf.apply(spec);
            if (!groupsMade.contains(group)) {
                groupsExpected.add(group);
            }
        }
    }

    /**
     * Makes {@code group} and its retry topic ({@code %RETRY%<group>}) on every master broker, together with every group
     * expected so far ({@link #consumerExpected}), unless made already; returns once the name server serves the retry topics' routes. Called
     * before the group's consumer starts: that start then finds the retry topic's route at once, and the broker's
     * heartbeat handling finds group and topic made, where it would otherwise make (and write to disk) each of them
     * one at a time for a burst of new groups, while every consumer of the burst waited to see its retry topic.
     *
     * <p>Only for a group {@link #consumerExpected} noted, which core calls only while it auto-provisions
     * ({@code switchboard.auto-provision}); a consumer core did not announce (or a broadcast one) starts as before.
     *
     * <p>Best effort, as the broker makes both anyway at the consumer's first heartbeat (what this adapter relied on
     * before): a failure (no admin rights, an older broker) is logged and the consumer starts as it would have. Groups
     * that exist are left as they are (their settings are not overwritten). Waits at most three admin time-outs for a
     * batch under way, then goes on without it.
     */
    public void ensureGroup(String group) {
        if (!groupsExpected.contains(group)) {
            return; // made already, or not expected: core notes only subscriptions it provisions for
        }
        try {
            if (!groupBatch.tryLock(3 * timeoutMillis(), TimeUnit.MILLISECONDS)) {
                log.debug("A batch of RocketMQ consumer groups is still being made after {} ms; group '{}' is left to the "
                        + "broker", 3 * timeoutMillis(), group);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            if (groupsMade.contains(group)) {
                return;
            }
            Set<String> batch = new LinkedHashSet<>(groupsExpected);
            batch.add(group);
            try {
                makeGroups(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                if (AclCredentials.isAuthenticationRefusal(e)) {
                    // not a missing admin right: the broker refuses every request with these credentials
                    throw new SwitchboardException(settings.credentials().refusal(e, "make consumer group '" + group + "'"), e);
                }
                log.info("Could not make RocketMQ consumer {} and their retry topics ahead of their consumers (name server "
                        + "{}): {}; the broker makes each at its consumer's first heartbeat instead", TopicAdmin.named(batch, "group", "groups"),
                        settings.nameServer(), e.toString());
            }
            groupsMade.addAll(batch);
            groupsExpected.removeAll(batch);
        } finally {
            groupBatch.unlock();
        }
    }

    /** One group list per master, one request per broker with the missing groups, one with their retry topics, one wait. */
    private void makeGroups(Set<String> groups) throws Exception {
        List<BrokerData> brokers = topics.groups();
        for (BrokerData broker : brokers) {
            String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            Set<String> existing = api().getAllSubscriptionGroup(master, timeoutMillis()).getSubscriptionGroupTable().keySet();
            List<SubscriptionGroupConfig> missing = groups.stream().filter(g -> !existing.contains(g)).map(g -> {
                SubscriptionGroupConfig config = new SubscriptionGroupConfig();
                config.setGroupName(g);
                return config;
            }).toList();
            if (!missing.isEmpty()) {
                api().createSubscriptionGroupList(master, missing, timeoutMillis());
            }
        }
        Set<String> retryTopics = groups.stream().map(MixAll::getRetryTopic).collect(Collectors.toCollection(LinkedHashSet::new));
        retryTopics.removeAll(topics.known(retryTopics));
        if (retryTopics.isEmpty()) {
            return;
        }
        // as the broker makes it at a consumer's heartbeat: one queue (a new group's retryQueueNums), read and write
        topics.create(brokers, retryTopics.stream().map(t -> new TopicConfig(t, 1, 1, PermName.PERM_READ | PermName.PERM_WRITE))
                .toList());
        topics.awaitRoutes(retryTopics, brokers.size());
        log.debug("Made {} RocketMQ consumer group(s) and {} retry topic(s) ahead of their consumers", groups.size(),
                retryTopics.size());
    }

    @Override
    public void deleteDestination(String name) {
        ensured.remove(name);
        try {
            TopicRouteData route = topics.route(name);
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
            String refused = settings.credentials().refusal(e, "delete topic '" + name + "'");
            throw new SwitchboardException(refused != null ? refused : "Could not delete RocketMQ topic '" + name
                    + "' (name server " + settings.nameServer() + "): " + e.getMessage(), e);
        }
    }

    private void deleteGroup(String group, TopicRouteData route) throws Exception {
        groupsMade.remove(group);
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

    private MQClientAPIImpl api() {
        return producers.api();
    }

    private long timeoutMillis() {
        return settings.adminTimeout().toMillis();
    }
}
