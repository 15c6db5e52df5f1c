package io.switchboard.kafka.internal.consume;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's rebalances as client events: a {@link EventKinds#REBALANCE} span from the first revocation or loss of
 * partitions to the next assignment, and an {@link EventKinds#ASSIGNMENT} instant whenever the partitions the
 * consumer holds changed (what was added and removed since the last one). Called from the rebalance callbacks, on
 * the poll thread only; once per rebalance, never per record. Reporting never throws into the client.
 */
public final class RebalanceEvents {

    private static final Logger log = LoggerFactory.getLogger(RebalanceEvents.class);
    /** How many partitions a detail names before it only counts the rest. */
    private static final int NAMED = 24;

    private final ClientEvents events;
    private final String group;
    private final Consumer<?, ?> consumer;
    private Set<TopicPartition> held = Set.of();
    private ClientEvents.Span rebalance;
    /** The consumer is leaving the group: what it gives up is no rebalance of its own. */
    private boolean leaving;

    /**
     * @param events where to report
     * @param group the consumer group: the events' subject
     * @param consumer the consumer whose callbacks report here (read only in them, on its poll thread)
     */
    public RebalanceEvents(ClientEvents events, String group, Consumer<?, ?> consumer) {
        this.events = events;
        this.group = group;
        this.consumer = consumer;
    }

    /** Partitions were revoked ({@code lost} false) or lost: opens the rebalance span unless one is open. */
    public void revoked(Collection<TopicPartition> partitions, boolean lost) {
        if (rebalance != null || leaving || events == ClientEvents.NONE) {
            return;
        }
        try {
            rebalance = events.begin(EventKinds.REBALANCE, group, "member " + member() + (lost ? " lost " : " gave up ")
                    + describe(partitions));
        } catch (RuntimeException e) {
            log.debug("Reporting a rebalance of group '{}' failed", group, e);
        }
    }

    /** An assignment completed: closes the open rebalance span and reports what the consumer's partitions gained and lost. */
    public void assigned() {
        if (events == ClientEvents.NONE) {
            return;
        }
        try {
            changed(Set.copyOf(consumer.assignment()));
        } catch (RuntimeException e) {
            log.debug("Reporting an assignment of group '{}' failed", group, e);
        }
    }

    /** The consumer is about to leave the group (unsubscribes or closes): its revocation opens no rebalance span. */
    public void leaving() {
        leaving = true;
    }

    /** The consumer holds nothing any more (it left the group or closes): closes what is open. */
    public void left() {
        leaving = false;
        if (events == ClientEvents.NONE) {
            return;
        }
        try {
            changed(Set.of());
        } catch (RuntimeException e) {
            log.debug("Reporting that a consumer of group '{}' left failed", group, e);
        }
    }

    private void changed(Set<TopicPartition> now) {
        Set<TopicPartition> added = new HashSet<>(now);
        added.removeAll(held);
        Set<TopicPartition> removed = new HashSet<>(held);
        removed.removeAll(now);
        held = now;
        if (!added.isEmpty() || !removed.isEmpty()) {
            events.instant(EventKinds.ASSIGNMENT, group, "added " + describe(added) + ", removed " + describe(removed)
                    + ", holds " + now.size());
        }
        if (rebalance != null) {
            ClientEvents.Span span = rebalance;
            rebalance = null;
            span.end();
        }
    }

    private String member() {
        try {
            String id = consumer.groupMetadata().memberId();
            return id == null || id.isEmpty() ? "(not joined)" : id;
        } catch (RuntimeException e) {
            return "(unknown)";
        }
    }

    /** {@return the partitions by topic, as {@code orders[0,1,2] audit[4]}, at most {@value #NAMED} named} */
    static String describe(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return "[]";
        }
        Map<String, Set<Integer>> byTopic = new TreeMap<>();
        for (TopicPartition partition : partitions) {
            byTopic.computeIfAbsent(partition.topic(), t -> new TreeSet<>()).add(partition.partition());
        }
        StringBuilder text = new StringBuilder();
        int named = 0;
        for (Map.Entry<String, Set<Integer>> topic : byTopic.entrySet()) {
            if (named >= NAMED) {
                break;
            }
            if (!text.isEmpty()) {
                text.append(' ');
            }
            text.append(topic.getKey()).append('[');
            int inTopic = 0;
            for (int p : topic.getValue()) {
                if (named >= NAMED) {
                    break;
                }
                text.append(inTopic++ > 0 ? "," : "").append(p);
                named++;
            }
            text.append(']');
        }
        if (named < partitions.size()) {
            text.append(" and ").append(partitions.size() - named).append(" more");
        }
        return text.toString();
    }
}
