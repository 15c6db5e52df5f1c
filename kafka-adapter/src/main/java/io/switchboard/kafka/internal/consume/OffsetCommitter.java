package io.switchboard.kafka.internal.consume;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a consumer's offsets: asynchronously at most every commit interval while consuming,
 * synchronously when partitions are revoked or the consumer closes, and before delivery for
 * at-most-once. Used by the poll thread only.
 */
final class OffsetCommitter {

    private static final Logger log = LoggerFactory.getLogger(OffsetCommitter.class);

    private final Consumer<byte[], byte[]> consumer;
    private final String group;
    private final long intervalNanos;
    private final Duration syncTimeout;
    private long lastCommitNanos;

    OffsetCommitter(Consumer<byte[], byte[]> consumer, String group, Duration interval, Duration syncTimeout) {
        this.consumer = consumer;
        this.group = group;
        this.intervalNanos = interval.toNanos();
        this.syncTimeout = syncTimeout;
    }

    /** Commits what was acked since the last commit, when the commit interval has passed; a failure is retried next time. */
    void maybeCommitAsync(Map<TopicPartition, PartitionState> partitions) {
        long now = System.nanoTime();
        if (now - lastCommitNanos < intervalNanos) {
            return;
        }
        lastCommitNanos = now;
        Map<TopicPartition, OffsetAndMetadata> offsets = pending(partitions.values());
        if (offsets.isEmpty()) {
            return;
        }
        consumer.commitAsync(offsets, (committed, error) -> {
            if (error != null) {
                log.debug("Asynchronous commit for group '{}' failed; the next commit retries: {}", group, error.toString());
                committed.keySet().forEach(partition -> {
                    PartitionState state = partitions.get(partition);
                    if (state != null) {
                        state.commitFailed();
                    }
                });
            }
        });
    }

    /**
     * Commits what was acked, waiting for the broker. A failure is logged and the offsets stay to be committed: the
     * next commit sends them again (a subscription that lets go of its partitions while the group rebalances, say for a
     * sibling subscription that closed just before, is refused with {@code RebalanceInProgressException}; the commit
     * when the rebalance takes those partitions away, or the consumer's last, then succeeds). Records whose offsets no
     * later commit carried are delivered again.
     */
    void commitSync(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = pending(states);
        if (offsets.isEmpty()) {
            return;
        }
        try {
            retryOnWakeup(() -> consumer.commitSync(offsets, syncTimeout));
        } catch (KafkaException e) {
            for (PartitionState state : states) {
                if (offsets.containsKey(state.partition())) {
                    state.commitFailed();
                }
            }
            log.warn("Could not commit offsets {} of group '{}' ({}); the next commit sends them again, and records no "
                    + "commit carries are delivered again", offsets, group, e.toString());
        }
    }

    /** At-most-once: commits offsets of records not yet delivered; false (logged) when the commit failed. */
    boolean commitBeforeDelivery(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            retryOnWakeup(() -> consumer.commitSync(offsets, syncTimeout));
            return true;
        } catch (KafkaException e) {
            log.warn("At-most-once consumer in group '{}' could not commit {} before delivery; those records are skipped: {}",
                    group, offsets, e.toString());
            return false;
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> pending(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionState state : states) {
            long offset = state.commitNeeded();
            if (offset >= 0) {
                offsets.put(state.partition(), new OffsetAndMetadata(offset));
                state.commitSent(offset);
            }
        }
        return offsets;
    }

    /** A blocking consumer call that a {@code wakeup()} (an ack's or nack's) must not abort. */
    static void retryOnWakeup(Runnable call) {
        while (true) {
            try {
                call.run();
                return;
            } catch (WakeupException e) {
                // woken up by a settlement: the call has not happened, make it again
            }
        }
    }
}
