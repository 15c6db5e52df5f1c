package io.switchboard.internal.memory;

import io.switchboard.Delivery;
import io.switchboard.spi.AbstractInboundRecord;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import io.switchboard.spi.TagFilter;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member of a consumer group on a memory topic. Its dispatcher thread hands records to the
 * listener while fewer than {@code maxInFlight} are unsettled; partitions are spread over the
 * group's members round robin and re-spread when members join or leave.
 */
final class MemoryConsumer implements RawConsumer {

    private static final Logger log = LoggerFactory.getLogger(MemoryConsumer.class);

    private final MemoryTopic topic;
    private final ConsumerSpec spec;
    private final boolean autoAck;
    private final TagFilter filter;
    private final Set<Long>[] outstanding;
    private MemoryTopic.MemoryGroup group;
    private RecordListener listener;
    private Thread dispatcher;
    private int inFlight;
    private int nextPartition;
    private volatile boolean stopped;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** The broker instance, in the dispatcher thread's name. */
    private final String instance;

    @SuppressWarnings("unchecked")
    MemoryConsumer(MemoryTopic topic, ConsumerSpec spec, String instance) {
        this.instance = instance;
        this.topic = topic;
        this.spec = spec;
        this.autoAck = spec.delivery() == Delivery.AT_MOST_ONCE;
        this.filter = TagFilter.parse(spec.filter());
        this.outstanding = new Set[topic.partitionCount];
        for (int p = 0; p < outstanding.length; p++) {
            outstanding[p] = new HashSet<>();
        }
    }

    @Override
    public CompletionStage<Void> start(RecordListener listener) {
        this.listener = listener;
        topic.lock.lock();
        try {
            group = topic.joinGroup(spec.group(), spec.broadcast(), spec.startFrom());
            group.members.add(this);
            topic.changed.signalAll();
        } finally {
            topic.lock.unlock();
        }
        dispatcher = new Thread(this::dispatch, "switchboard-memory[" + instance + "]-" + topic.name + "-" + spec.group());
        dispatcher.setDaemon(true);
        dispatcher.start();
        return CompletableFuture.completedFuture(null);
    }

    private void dispatch() {
        topic.lock.lock();
        try {
            while (!stopped) {
                long untilDue = topic.promoteDue();
                InboundRecord record = next();
                if (record == null) {
                    if (untilDue == Long.MAX_VALUE) {
                        topic.changed.await();
                    } else {
                        topic.changed.awaitNanos(untilDue);
                    }
                    continue;
                }
                topic.lock.unlock();
                try {
                    listener.onRecord(record);
                } finally {
                    topic.lock.lock();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            topic.lock.unlock();
        }
    }

    /** Under the lock: the next record for this member, or null. */
    private InboundRecord next() {
        if (inFlight >= spec.maxInFlight() || topic.isDeleted()) {
            return null;
        }
        int n = topic.partitionCount;
        for (int i = 0; i < n; i++) {
            int p = (nextPartition + i) % n;
            if (!group.assigned(this, p)) {
                continue;
            }
            long offset;
            int count;
            if (!group.redeliver[p].isEmpty()) {
                offset = group.redeliver[p].pollFirst();
                count = group.deliveries.get(p).merge(offset, 1, Integer::sum) + 1;
            } else if (group.next[p] < topic.end(p)) {
                offset = group.next[p]++;
                count = 1;
            } else {
                continue;
            }
            nextPartition = p + 1;
            MemoryTopic.Stored stored = topic.get(p, offset);
            if (!filter.matches(stored.headers().get(TagFilter.TAG_HEADER))) {
                group.ack(p, offset);
                topic.trim();
                listener.onFiltered();
                i = -1; // look again from this partition's successor
                continue;
            }
            if (autoAck) {
                group.ack(p, offset);
                topic.trim();
            } else {
                inFlight++;
                outstanding[p].add(offset);
            }
            return new Record(p, offset, stored, count);
        }
        return null;
    }

    private void settle(int partition, long offset, boolean ack) {
        topic.lock.lock();
        try {
            if (outstanding[partition].remove(offset)) {
                inFlight--;
            }
            if (ack) {
                group.ack(partition, offset);
                topic.trim();
            } else if (offset >= group.committed[partition]) {
                group.redeliver[partition].add(offset);
            }
            topic.changed.signalAll();
        } finally {
            topic.lock.unlock();
        }
    }

    void fail(String reason) {
        stopped = true;
        listener.onFailure(new IllegalStateException("Memory broker ended the subscription: " + reason));
    }

    @Override
    public void stop() {
        stopped = true;
        topic.lock.lock();
        try {
            topic.changed.signalAll();
        } finally {
            topic.lock.unlock();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stop();
        if (dispatcher != null) {
            try {
                dispatcher.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        topic.lock.lock();
        try {
            if (group == null) {
                return;
            }
            int returned = 0;
            for (int p = 0; p < outstanding.length; p++) {
                for (Long offset : outstanding[p]) {
                    group.redeliver[p].add(offset);
                    returned++;
                }
                outstanding[p].clear();
            }
            inFlight = 0;
            group.members.remove(this);
            topic.leaveGroup(group);
            topic.changed.signalAll();
            if (returned > 0) {
                log.debug("Returned {} unsettled record(s) of '{}' to group '{}'", returned, topic.name, group.name);
            }
        } finally {
            topic.lock.unlock();
        }
    }

    @Override
    public OptionalLong backlog() {
        topic.lock.lock();
        try {
            if (group == null) {
                return OptionalLong.empty();
            }
            long total = 0;
            for (int p = 0; p < topic.partitionCount; p++) {
                total += topic.end(p) - group.committed[p];
            }
            return OptionalLong.of(total);
        } finally {
            topic.lock.unlock();
        }
    }

    /** A delivered record; the first ack or nack wins. */
    private final class Record extends AbstractInboundRecord {
        private static final int SETTLED = 1;

        Record(int partition, long offset, MemoryTopic.Stored stored, int deliveryCount) {
            super(topic.name, partition, offset, stored.key(), stored.headers(), stored.payload(), deliveryCount, null,
                    stored.timestamp(), autoAck ? SETTLED : PENDING);
        }

        @Override
        public void ack() {
            if (settle(PENDING, SETTLED)) {
                MemoryConsumer.this.settle(partition(), offset(), true);
            }
        }

        @Override
        public void nack() {
            if (settle(PENDING, SETTLED)) {
                MemoryConsumer.this.settle(partition(), offset(), false);
            }
        }
    }
}
