package io.switchboard.kafka.internal.consume;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * The start positions of a {@link GroupConsumer}'s newly assigned partitions, and the readiness of its subscriptions
 * that follows from them. Partitions are not waited for in the rebalance callback (a blocked callback would hold the
 * poll thread and every other subscription of the consumer): one whose leader has not answered the offset lookup yet
 * (new topics, a broker still bringing them online) gets its start position after a later poll ({@link #resolve}),
 * and a subscription is ready once the assignment took its topic into account and every partition of it this member
 * holds has its position. Poll thread only.
 */
final class Readiness {

    private final Consumer<byte[], byte[]> consumer;
    /** The group consumer's partitions and attachments (its own maps, read here). */
    private final Map<TopicPartition, PartitionState> partitions;
    private final Map<String, Attachment> attached;
    /** How many of {@link #partitions} had no start position at the last look. */
    private int unpositioned;
    /** Where {@link #resolve} begins its next pass among the partitions still without a start position. */
    private int cursor;

    Readiness(Consumer<byte[], byte[]> consumer, Map<TopicPartition, PartitionState> partitions,
            Map<String, Attachment> attached) {
        this.consumer = consumer;
        this.partitions = partitions;
        this.attached = attached;
    }

    /** {@return how many partitions had no start position at the last look} */
    int unpositioned() {
        return unpositioned;
    }

    /**
     * A partition was just assigned: {@return its start position, or -1 (counted) while its leader has not answered}
     *
     * @param partition the partition
     * @param ask false to count it without asking: another partition of the same answer just had none
     */
    long assigned(TopicPartition partition, boolean ask) {
        long position = ask ? positionNow(partition) : -1;
        if (position < 0) {
            unpositioned++;
        }
        return position;
    }

    /** After an assignment: marks the attachments it took into account, then completes those that are ready. */
    void afterAssignment() {
        for (Attachment attachment : attached.values()) {
            if (!attachment.assigned && (!attachment.owned.isEmpty() || known(attachment.topic()))) {
                attachment.assigned = true;
            }
        }
        completeReady();
    }

    /**
     * After a poll: the start positions the client learned meanwhile, then the subscriptions that became ready. The
     * client answers the lookups of one leader together, so a pass stops at its third partition still without one
     * (each such question costs an exception), and the next pass begins after it: no partition that stays unanswered
     * keeps the others from being asked.
     */
    void resolve() {
        if (unpositioned == 0) {
            return;
        }
        List<PartitionState> waiting = new ArrayList<>();
        for (PartitionState state : partitions.values()) {
            if (!state.positioned()) {
                waiting.add(state);
            }
        }
        int misses = 0;
        for (int i = 0; i < waiting.size() && misses < 3; i++) {
            int at = (cursor + i) % waiting.size();
            long position = positionNow(waiting.get(at).partition());
            if (position >= 0) {
                waiting.get(at).position(position);
            } else {
                misses++;
                cursor = at + 1;
            }
        }
        unpositioned = (int) waiting.stream().filter(state -> !state.positioned()).count();
        completeReady();
    }

    private void completeReady() {
        for (Attachment attachment : attached.values()) {
            if (attachment.assigned && !attachment.ready.isDone()
                    && attachment.owned.stream().allMatch(PartitionState::positioned)) {
                attachment.ready.complete(null);
            }
        }
    }

    /** {@return the client's position of the partition, or -1 while its leader has not answered the lookup} */
    private long positionNow(TopicPartition partition) {
        long[] position = {-1};
        try {
            OffsetCommitter.retryOnWakeup(() -> position[0] = consumer.position(partition, Duration.ZERO));
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return -1;
        }
        return position[0];
    }

    /**
     * Whether the client's metadata lists the topic, so that the assignment just made took it into account: a
     * subscription whose topic was created moments ago can join before the broker lists it, and is ready only at a
     * later rebalance, which the client begins as soon as its metadata lists the topic. A member that holds a partition
     * of the topic is ready without asking; one that holds none (more members than partitions) asks here, from the
     * client's cache, without waiting for the broker.
     */
    private boolean known(String topic) {
        boolean[] known = new boolean[1];
        try {
            OffsetCommitter.retryOnWakeup(() -> known[0] = !consumer.partitionsFor(topic, Duration.ZERO).isEmpty());
        } catch (KafkaException e) {
            return false; // not in the cache (a zero wait times out at once): not known yet
        }
        return known[0];
    }
}
