package io.switchboard.kafka.internal.consume;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a group consumer sees of its cluster, as client events: the leader of a partition it holds moving
 * ({@link EventKinds#LEADER_CHANGE}, from the client's cached metadata, which it refreshes when a leader stops
 * answering; read with a zero timeout so a topic not in the cache is skipped, never waited for), and its loss of
 * every broker connection, as a {@link EventKinds#CONNECTION_LOST} span: kafka-clients has
 * no connection callback, so the poll thread reads the client's own {@code connection-count} metric (its open or
 * opening connections to brokers) at most every {@value #EVERY_MILLIS} ms. Two readings in a row at zero open the
 * span, two above zero end it (a reconnect attempt to a stopped broker is refused at once, so a reading seldom sees
 * one). A member of a group always holds its coordinator's connection, so zero means the cluster is unreachable from
 * this client; losing some brokers of several is not reported. Poll thread only; nothing per record.
 */
final class ClusterWatch {

    private static final Logger log = LoggerFactory.getLogger(ClusterWatch.class);
    static final long EVERY_MILLIS = 500;
    private static final long EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(EVERY_MILLIS);

    private final Consumer<?, ?> consumer;
    private final ClientEvents events;
    private final String group;
    private Metric connections;
    private long next;
    /** Readings in a row that disagree with the current state. */
    private int against;
    private ClientEvents.Span lost;
    /** The last leader seen of each partition held (-1: none). */
    private final Map<TopicPartition, Integer> leaders = new HashMap<>();

    ClusterWatch(Consumer<?, ?> consumer, ClientEvents events, String group) {
        this.consumer = consumer;
        this.events = events;
        this.group = group;
    }

    /** After a poll: reads the metric when it is time. */
    void check() {
        if (events == ClientEvents.NONE) {
            return;
        }
        long now = System.nanoTime();
        if (now - next < 0) {
            return;
        }
        next = now + EVERY_NANOS;
        try {
            leaders();
            Metric metric = metric();
            if (metric == null || !(metric.metricValue() instanceof Number value)) {
                return;
            }
            boolean none = value.doubleValue() < 1;
            if (none == (lost != null)) {
                against = 0;
                return;
            }
            if (++against < 2) {
                return;
            }
            against = 0;
            if (none) {
                lost = events.begin(EventKinds.CONNECTION_LOST, group,
                        "the consumer holds no connection to any broker; kafka-clients reconnects");
            } else {
                end();
            }
        } catch (RuntimeException e) {
            log.debug("Reading the connections of a consumer of group '{}' failed", group, e);
        }
    }

    /** An assignment completed: notes the leaders of the partitions held now (in the rebalance callback). */
    void assigned() {
        if (events == ClientEvents.NONE) {
            return;
        }
        try {
            leaders();
        } catch (RuntimeException e) {
            log.debug("Reading the leaders of group '{}' failed", group, e);
        }
    }

    private void leaders() {
        Set<TopicPartition> held = consumer.assignment();
        leaders.keySet().retainAll(held);
        Set<String> topics = new HashSet<>();
        for (TopicPartition partition : held) {
            topics.add(partition.topic());
        }
        for (String topic : topics) {
            List<PartitionInfo> infos;
            try {
                infos = consumer.partitionsFor(topic, Duration.ZERO);
            } catch (RuntimeException e) {
                continue; // not in the cached metadata now
            }
            for (PartitionInfo info : infos) {
                TopicPartition partition = new TopicPartition(topic, info.partition());
                if (!held.contains(partition)) {
                    continue;
                }
                int leader = info.leader() == null || info.leader().isEmpty() ? -1 : info.leader().id();
                Integer before = leaders.put(partition, leader);
                if (before != null && before != leader) {
                    events.instant(EventKinds.LEADER_CHANGE, partition.toString(), "group '" + group + "' sees the leader move "
                            + "from " + broker(before) + " to " + broker(leader));
                }
            }
        }
    }

    private static String broker(int id) {
        return id < 0 ? "no broker" : "broker " + id;
    }

    /** Ends an open span (the consumer closes). */
    void end() {
        ClientEvents.Span span = lost;
        lost = null;
        if (span != null) {
            span.end();
        }
    }

    private Metric metric() {
        if (connections == null) {
            for (var entry : consumer.metrics().entrySet()) {
                MetricName name = entry.getKey();
                if (name.name().equals("connection-count") && name.group().equals("consumer-metrics")) {
                    connections = entry.getValue();
                    break;
                }
            }
        }
        return connections;
    }
}
