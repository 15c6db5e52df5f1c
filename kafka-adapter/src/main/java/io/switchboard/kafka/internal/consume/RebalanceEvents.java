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
 * partitions until the group has handed them out again, and an {@link EventKinds#ASSIGNMENT} instant whenever the
 * partitions the consumer holds changed (what was added and removed since the last one).
 *
 * <p>The span covers what the group goes through, not only this member's callbacks: with the cooperative assignor a
 * member gives partitions up at the end of one rebalance and they are handed to their new owner only by the next
 * one, which waits until every member rejoined (a member that is not polling hears of it on its next heartbeat,
 * seconds later). Meanwhile nobody fetches them, and what is published to them waits. So the span ends at the first
 * assignment of a later generation than the revocation (with the eager assignor, the assignment that ends the same
 * rebalance), and when that assignment gives this member partitions, only once it fetched records from one of them or
 * {@value #FETCH_GRACE_MILLIS} ms passed (a partition with nothing waiting returns nothing). The member that takes
 * the partitions over in another process sees no revocation of its own; this member's span covers its wait too.
 * Called from the rebalance callbacks and after polls, on the poll thread only; once per rebalance or poll, never per
 * record. Reporting never throws into the client.
 */
public final class RebalanceEvents {

    private static final Logger log = LoggerFactory.getLogger(RebalanceEvents.class);
    /** How many partitions a detail names before it only counts the rest. */
    private static final int NAMED = 24;
    /** How long a gained partition may return nothing before the span ends anyway. */
    static final long FETCH_GRACE_MILLIS = 500;

    private final ClientEvents events;
    private final String group;
    private final Consumer<?, ?> consumer;
    private Set<TopicPartition> held = Set.of();
    private ClientEvents.Span rebalance;
    /** The group generation the open span's revocation happened in. */
    private int revokedIn;
    /** The partitions the completing assignment gave this member, while the span waits for their first records. */
    private Set<TopicPartition> gained = Set.of();
    /** When the completing assignment came ({@link System#nanoTime()}), while {@link #gained} is waited for. */
    private long gainedAt;
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
            revokedIn = generation();
            gained = Set.of();
            rebalance = events.begin(EventKinds.REBALANCE, group, "member " + member() + (lost ? " lost " : " gave up ")
                    + describe(partitions));
        } catch (RuntimeException e) {
            log.debug("Reporting a rebalance of group '{}' failed", group, e);
        }
    }

    /**
     * An assignment completed: reports what the consumer's partitions gained and lost, and closes the open rebalance
     * span when the assignment is of a later generation than its revocation (after the first fetch of what it gained).
     */
    public void assigned() {
        if (events == ClientEvents.NONE) {
            return;
        }
        try {
            int generation = generation();
            changed(Set.copyOf(consumer.assignment()), generation < 0 || generation > revokedIn);
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
            changed(Set.of(), true);
        } catch (RuntimeException e) {
            log.debug("Reporting that a consumer of group '{}' left failed", group, e);
        }
    }

    /** {@return whether the open span waits for the first records of partitions this member just gained} */
    public boolean awaitingFetch() {
        return rebalance != null && !gained.isEmpty();
    }

    /**
     * After a poll while {@link #awaitingFetch()}: ends the span once the poll returned records of a gained partition,
     * or {@value #FETCH_GRACE_MILLIS} ms after the assignment.
     *
     * @param fetched the partitions the poll returned records of
     */
    public void polled(Collection<TopicPartition> fetched) {
        if (!awaitingFetch()) {
            return;
        }
        boolean any = false;
        for (TopicPartition partition : fetched) {
            any |= gained.contains(partition);
        }
        if (any || System.nanoTime() - gainedAt >= FETCH_GRACE_MILLIS * 1_000_000L) {
            end();
        }
    }

    private void changed(Set<TopicPartition> now, boolean completes) {
        Set<TopicPartition> added = new HashSet<>(now);
        added.removeAll(held);
        Set<TopicPartition> removed = new HashSet<>(held);
        removed.removeAll(now);
        held = now;
        if (!added.isEmpty() || !removed.isEmpty()) {
            events.instant(EventKinds.ASSIGNMENT, group, "added " + describe(added) + ", removed " + describe(removed)
                    + ", holds " + now.size());
        }
        if (rebalance == null || !completes) {
            return;
        }
        if (added.isEmpty()) {
            end();
        } else {
            gained = Set.copyOf(added);
            gainedAt = System.nanoTime();
        }
    }

    private void end() {
        ClientEvents.Span span = rebalance;
        rebalance = null;
        gained = Set.of();
        try {
            span.end();
        } catch (RuntimeException e) {
            log.debug("Reporting the end of a rebalance of group '{}' failed", group, e);
        }
    }

    /** {@return the consumer's group generation, or -1 when it has none or it cannot be read} */
    private int generation() {
        try {
            return consumer.groupMetadata().generationId();
        } catch (RuntimeException e) {
            return -1;
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
