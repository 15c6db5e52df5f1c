package io.switchboard.kafka.internal.consume;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link GroupConsumer}'s hand-over of fetched records in one round of its poll loop, attachment by attachment:
 * each gets at most its {@code maxInFlight} unsettled, through its tag filter; then only the partitions of an
 * attachment whose records wait for room (or that stopped) are paused. Poll thread only.
 */
final class RoundDelivery {

    private final Consumer<byte[], byte[]> consumer;
    private final OffsetCommitter committer;
    private final boolean commitBeforeDelivery;
    /** The group consumer's attachments by topic (its own map, read here). */
    private final Map<String, Attachment> attached;

    RoundDelivery(Consumer<byte[], byte[]> consumer, OffsetCommitter committer, boolean commitBeforeDelivery,
            Map<String, Attachment> attached) {
        this.consumer = consumer;
        this.committer = committer;
        this.commitBeforeDelivery = commitBeforeDelivery;
        this.attached = attached;
    }

    /**
     * Hands fetched records over, to each attachment while fewer than its maxInFlight are unsettled. The room is read
     * again when the round's runs out: a handler that runs on this thread settles each record before the next, so a
     * poll larger than maxInFlight (a shared consumer polls up to 500) is handed over whole, without pausing its
     * partitions and polling again for the rest.
     */
    void deliver() {
        if (commitBeforeDelivery) {
            deliverCommittedFirst();
            return;
        }
        for (Attachment attachment : attached.values()) {
            int budget = room(attachment);
            if (attachment.stopped || budget <= 0) {
                continue;
            }
            for (PartitionState state : attachment.owned) {
                while (state.hasFetched() && (budget > 0 || (budget = room(attachment)) > 0)) {
                    ConsumerRecord<byte[], byte[]> fetched = state.nextFetched();
                    if (attachment.tags != null && !attachment.tags.matches(fetched)) {
                        state.filtered(fetched.offset());
                        attachment.listener.onFiltered();
                        continue;
                    }
                    KafkaInboundRecord record = new KafkaInboundRecord(fetched, state.deliveryCount(fetched.offset()),
                            attachment, false, attachment.keys);
                    budget--;
                    try {
                        attachment.dispatch(record); // handled before it returns when core runs the handler here
                    } finally {
                        state.delivered(record);
                    }
                }
            }
        }
    }

    /** How many more records the attachment may have unsettled now. */
    private static int room(Attachment attachment) {
        return attachment.spec.maxInFlight() - attachment.inFlight.get();
    }

    /** At-most-once: commits the records' offsets (one commit for every attachment's), then hands them over; a failed commit drops them. */
    private void deliverCommittedFirst() {
        Map<PartitionState, List<ConsumerRecord<byte[], byte[]>>> chunks = new LinkedHashMap<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Attachment attachment : attached.values()) {
            int budget = attachment.spec.maxInFlight() - attachment.inFlight.get();
            if (attachment.stopped) {
                continue;
            }
            for (PartitionState state : attachment.owned) {
                while (budget > 0 && state.hasFetched()) {
                    ConsumerRecord<byte[], byte[]> fetched = state.nextFetched();
                    chunks.computeIfAbsent(state, s -> new ArrayList<>()).add(fetched);
                    offsets.put(state.partition(), new OffsetAndMetadata(fetched.offset() + 1));
                    budget--;
                }
            }
        }
        if (offsets.isEmpty() || !committer.commitBeforeDelivery(offsets)) {
            return;
        }
        chunks.forEach((state, records) -> {
            state.committedBeforeDelivery(records.get(records.size() - 1).offset() + 1);
            Attachment attachment = attached.get(state.partition().topic());
            for (ConsumerRecord<byte[], byte[]> fetched : records) {
                if (attachment.tags != null && !attachment.tags.matches(fetched)) {
                    attachment.listener.onFiltered();
                    continue;
                }
                attachment.dispatch(new KafkaInboundRecord(fetched, 1, attachment, true, attachment.keys));
            }
        });
    }

    /**
     * Pauses the partitions of each attachment whose records wait for room (or that stopped), resumes the others';
     * arms the wake-up of the next ack of each attachment that waits for room.
     *
     * @return true when an attachment found room meanwhile (poll without waiting, then deliver again)
     */
    boolean flowControl() {
        Set<TopicPartition> paused = consumer.paused();
        List<TopicPartition> pause = null;
        List<TopicPartition> resume = null;
        boolean room = false;
        for (Attachment attachment : attached.values()) {
            boolean hold = attachment.stopped;
            for (PartitionState state : attachment.owned) {
                hold |= state.hasFetched();
            }
            for (PartitionState state : attachment.owned) {
                boolean isPaused = paused.contains(state.partition());
                if (hold && !isPaused) {
                    (pause == null ? pause = new ArrayList<>() : pause).add(state.partition());
                } else if (!hold && isPaused) {
                    (resume == null ? resume = new ArrayList<>() : resume).add(state.partition());
                }
            }
            if (hold && !attachment.stopped) {
                attachment.waitingForSettlement.set(true);
                if (attachment.inFlight.get() < attachment.spec.maxInFlight()) {
                    attachment.waitingForSettlement.set(false);
                    room = true;
                }
            }
        }
        if (pause != null) {
            consumer.pause(pause);
        }
        if (resume != null) {
            consumer.resume(resume);
        }
        return room;
    }
}
