package io.switchboard.rocketmq.internal.provision;

import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
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
 * The admin round trips that create topics, a whole batch at a time: which of the batch the name server knows (one
 * topic list), the broker groups (one cluster info), the topics on each master and slave (one request per broker with
 * every topic of the batch), and one wait for all their routes (one topic list per round). A broker that does not know
 * the list request (older than 5.x) gets the topics one by one.
 */
final class TopicAdmin {

    private static final Logger log = LoggerFactory.getLogger(TopicAdmin.class);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Up to this many topics are looked up a route each; more take one topic list (of every topic) instead. */
    private static final int ROUTE_LOOKUPS = 2;
    /** Topics named in a message; the rest are counted. */
    static final int NAMED = 10;

    private final Producers producers;
    private final RocketMqSettings settings;
    /** Brokers that answered the list request with "request code not supported": they get topics one by one. */
    private final Set<String> singleTopicBrokers = ConcurrentHashMap.newKeySet();

    TopicAdmin(Producers producers, RocketMqSettings settings) {
        this.producers = producers;
        this.settings = settings;
    }

    /** The topic's route, or null when the name server does not know the topic. */
    TopicRouteData route(String topic) throws Exception {
        try {
            return api().getTopicRouteInfoFromNameServer(topic, timeoutMillis(), false);
        } catch (MQClientException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return null;
            }
            throw e;
        }
    }

    /** Those of {@code topics} the name server has a route for. */
    Set<String> known(Collection<String> topics) throws Exception {
        Set<String> listed = topics.size() > ROUTE_LOOKUPS ? topicList() : null;
        if (listed != null) {
            return topics.stream().filter(listed::contains).collect(Collectors.toSet());
        }
        Set<String> known = new HashSet<>();
        for (String topic : topics) {
            if (route(topic) != null) {
                known.add(topic);
            }
        }
        return known;
    }

    /** The broker groups with a master (of the configured cluster, if one is set). */
    List<BrokerData> groups() throws Exception {
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

    /** Creates the topics on every group's master, then on its slaves. */
    void create(List<BrokerData> groups, List<TopicConfig> configs) throws Exception {
        for (BrokerData group : groups) {
            createOn(group.getBrokerAddrs().get(MixAll.MASTER_ID), configs);
            createOnSlaves(group, configs);
        }
    }

    /** Creates the topics on one broker: in one request, or one by one on a broker that does not take lists. */
    private void createOn(String broker, List<TopicConfig> configs) throws Exception {
        if (configs.size() > 1 && !singleTopicBrokers.contains(broker)) {
            try {
                api().createTopicList(broker, configs, timeoutMillis());
                return;
            } catch (MQClientException e) {
                if (e.getResponseCode() != ResponseCode.REQUEST_CODE_NOT_SUPPORTED) {
                    throw e;
                }
                singleTopicBrokers.add(broker);
                log.debug("RocketMQ broker {} does not take a list of topics in one request ({}): creating {} topics on it "
                        + "one by one, from now on", broker, e.getErrorMessage(), configs.size());
            }
        }
        for (TopicConfig config : configs) {
            api().createTopic(broker, TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, config, timeoutMillis());
        }
    }

    /**
     * Creates the topics on the group's slaves too. A slave copies its master's topics only every
     * few seconds; one promoted before that copy would not know a topic whose messages it holds, and
     * refuses every pull of it ("topic not exist") for good. A slave that does not answer is left to
     * that copy (logged).
     */
    private void createOnSlaves(BrokerData group, List<TopicConfig> configs) {
        for (Map.Entry<Long, String> broker : group.getBrokerAddrs().entrySet()) {
            if (broker.getKey() == MixAll.MASTER_ID) {
                continue;
            }
            try {
                createOn(broker.getValue(), configs);
            } catch (Exception e) {
                String topics = named(configs.stream().map(TopicConfig::getTopicName).toList());
                log.warn("Could not create {} on slave {} of RocketMQ broker group '{}': {}; it copies topics from its "
                        + "master within seconds, and a failover before then leaves {} unknown to it",
                        topics, broker.getValue(), group.getBrokerName(), e.toString(), topics);
            }
        }
    }

    /**
     * Waits, until one deadline ({@code rocketmq.admin-timeout}), for the name server to serve a route of every topic
     * with {@code brokers} writable broker groups.
     */
    void awaitRoutes(Collection<String> topics, int brokers) throws Exception {
        long deadline = System.nanoTime() + settings.adminTimeout().toNanos();
        Set<String> waiting = new LinkedHashSet<>(topics);
        while (true) {
            Set<String> listed = waiting.size() > ROUTE_LOOKUPS ? topicList() : null;
            for (Iterator<String> it = waiting.iterator(); it.hasNext(); ) {
                String topic = it.next();
                if (listed != null && !listed.contains(topic)) {
                    continue;
                }
                // with one group, a listed topic is served: its queues are the ones just created, writable
                if (listed != null && brokers == 1 || writable(route(topic), brokers)) {
                    it.remove();
                }
            }
            if (waiting.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                boolean one = waiting.size() == 1;
                throw new SwitchboardException("RocketMQ " + named(waiting) + (one ? " was" : " were")
                        + " created but the name server " + settings.nameServer() + " did not serve "
                        + (one ? "its route" : "their routes") + " within " + settings.adminTimeout() + "; raise "
                        + RocketMqSettings.ADMIN_TIMEOUT);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Every topic the name server knows, or null when it does not list them (enableAllTopicList=false). */
    private Set<String> topicList() throws Exception {
        try {
            return api().getTopicListFromNameServer(timeoutMillis()).getTopicList();
        } catch (MQClientException e) {
            log.debug("The RocketMQ name server {} does not list its topics ({}); looking up each topic's route instead",
                    settings.nameServer(), e.getErrorMessage());
            return null;
        }
    }

    private static boolean writable(TopicRouteData route, int brokers) {
        if (route == null) {
            return false;
        }
        int writable = 0;
        for (QueueData queue : route.getQueueDatas()) {
            if (queue.getWriteQueueNums() > 0 && PermName.isWriteable(queue.getPerm())) {
                writable++;
            }
        }
        return writable >= brokers;
    }

    /** {@code topic 'a'}, or {@code topics 'a', 'b'} (the first few, then how many more). */
    static String named(Collection<String> topics) {
        return named(topics, "topic", "topics");
    }

    /** {@code <one> 'a'}, or {@code <many> 'a', 'b'} (the first few, then how many more). */
    static String named(Collection<String> names, String one, String many) {
        String listed = names.stream().limit(NAMED).map(t -> "'" + t + "'").collect(Collectors.joining(", "));
        return (names.size() == 1 ? one : many) + " " + listed
                + (names.size() > NAMED ? " and " + (names.size() - NAMED) + " more" : "");
    }

    private MQClientAPIImpl api() {
        return producers.api();
    }

    private long timeoutMillis() {
        return settings.adminTimeout().toMillis();
    }
}
