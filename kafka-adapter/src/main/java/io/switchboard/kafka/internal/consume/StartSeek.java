package io.switchboard.kafka.internal.consume;

import io.switchboard.StartPosition;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts newly assigned partitions at a subscription's {@link StartPosition} of kind offset or time, where its group
 * has committed nothing: Kafka's {@code auto.offset.reset} knows only earliest and latest, so these are sought, as
 * Spring Kafka's seek callbacks do, in the assignment callback on the poll thread. That takes up to three lookups
 * (the group's committed offsets, then the log's range or the offsets of the time), each at most {@link #LOOKUP}:
 * {@link GroupConsumers} gives such a subscription a consumer of its own, so the wait holds back no other
 * subscription. A partition with a committed offset resumes from it.
 */
final class StartSeek {

    private static final Logger log = LoggerFactory.getLogger(StartSeek.class);
    /** The longest one lookup of the seek may take before the assignment (and the consumer) fails. */
    static final Duration LOOKUP = Duration.ofSeconds(30);

    private StartSeek() {}

    /** Whether a subscription's start position is one the consumer must seek to. */
    static boolean seeks(StartPosition start) {
        return start != null && (start.kind() == StartPosition.Kind.OFFSET || start.kind() == StartPosition.Kind.TIME);
    }

    /**
     * Seeks the partitions of {@code assigned} that are new to the consumer, belong to a subscription that starts at
     * an offset or a time, and have no committed offset.
     */
    static void apply(Consumer<byte[], byte[]> consumer, String group, Map<String, Attachment> attached,
            Collection<TopicPartition> assigned) {
        Set<TopicPartition> wanted = new HashSet<>();
        for (TopicPartition partition : assigned) {
            Attachment owner = attached.get(partition.topic());
            if (owner != null && seeks(owner.spec.startFrom())) {
                wanted.add(partition);
            }
        }
        if (wanted.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        OffsetCommitter.retryOnWakeup(() -> committed.putAll(consumer.committed(wanted, LOOKUP)));
        Set<TopicPartition> fresh = new HashSet<>();
        for (TopicPartition partition : wanted) {
            if (committed.get(partition) == null) {
                fresh.add(partition);
            }
        }
        if (fresh.isEmpty()) {
            log.debug("Group '{}' resumes {} from its committed offsets; its start position does not apply", group, wanted);
            return;
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        OffsetCommitter.retryOnWakeup(() -> end.putAll(consumer.endOffsets(fresh, LOOKUP)));
        Map<TopicPartition, Long> begin = new HashMap<>();
        Map<TopicPartition, Long> times = new HashMap<>();
        Set<TopicPartition> byOffset = new HashSet<>();
        for (TopicPartition partition : fresh) {
            StartPosition start = attached.get(partition.topic()).spec.startFrom();
            if (start.kind() == StartPosition.Kind.OFFSET) {
                byOffset.add(partition);
            } else {
                times.put(partition, start.time().toEpochMilli());
            }
        }
        if (!byOffset.isEmpty()) {
            OffsetCommitter.retryOnWakeup(() -> begin.putAll(consumer.beginningOffsets(byOffset, LOOKUP)));
        }
        Map<TopicPartition, OffsetAndTimestamp> found = new HashMap<>();
        if (!times.isEmpty()) {
            OffsetCommitter.retryOnWakeup(() -> found.putAll(consumer.offsetsForTimes(times, LOOKUP)));
        }
        for (TopicPartition partition : fresh) {
            StartPosition start = attached.get(partition.topic()).spec.startFrom();
            long target;
            if (start.kind() == StartPosition.Kind.OFFSET) {
                // clamped to the log's range, as the broker would reset an offset out of it
                target = Math.max(begin.get(partition), Math.min(start.offset(), end.get(partition)));
            } else {
                OffsetAndTimestamp at = found.get(partition);
                target = at != null ? at.offset() : end.get(partition); // every record older: the next one published
            }
            consumer.seek(partition, target);
            log.info("Group '{}' has no committed offset on {}: starts at offset {} ({})", group, partition, target, start);
        }
    }
}
