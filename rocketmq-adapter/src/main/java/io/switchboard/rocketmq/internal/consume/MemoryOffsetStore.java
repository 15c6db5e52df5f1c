package io.switchboard.rocketmq.internal.consume;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Offsets of a broadcast subscriber, kept in memory only: a broadcast subscriber receives what is
 * published while it runs and nothing is retained for it after close. (RocketMQ's own broadcast
 * store writes files under {@code ~/.rocketmq_offsets}.)
 *
 * <p>Start positions set with {@link #startAt} survive {@link #removeOffset}, which RocketMQ calls
 * on every queue it assigns before reading where to start.
 */
final class MemoryOffsetStore implements OffsetStore {

    private final Map<MessageQueue, Long> offsets = new ConcurrentHashMap<>();
    private final Map<MessageQueue, Long> starts = new ConcurrentHashMap<>();

    /** Where to start reading a queue that has no offset yet. */
    void startAt(MessageQueue queue, long offset) {
        starts.put(queue, offset);
    }

    @Override
    public void load() {
        // nothing is kept between runs
    }

    @Override
    public void updateOffset(MessageQueue queue, long offset, boolean increaseOnly) {
        if (increaseOnly) {
            offsets.merge(queue, offset, Math::max);
        } else {
            offsets.put(queue, offset);
        }
    }

    @Override
    public void updateAndFreezeOffset(MessageQueue queue, long offset) {
        offsets.put(queue, offset);
    }

    @Override
    public long readOffset(MessageQueue queue, ReadOffsetType type) {
        Long offset = offsets.get(queue);
        return offset != null ? offset : starts.getOrDefault(queue, -1L);
    }

    @Override
    public void persistAll(Set<MessageQueue> queues) {
        // memory only
    }

    @Override
    public void persist(MessageQueue queue) {
        // memory only
    }

    @Override
    public void removeOffset(MessageQueue queue) {
        offsets.remove(queue);
    }

    @Override
    public Map<MessageQueue, Long> cloneOffsetTable(String topic) {
        Map<MessageQueue, Long> copy = new HashMap<>();
        offsets.forEach((queue, offset) -> {
            if (topic == null || topic.equals(queue.getTopic())) {
                copy.put(queue, offset);
            }
        });
        return copy;
    }

    @Override
    public void updateConsumeOffsetToBroker(MessageQueue queue, long offset, boolean isOneway) {
        // broadcast offsets stay on the subscriber
    }
}
