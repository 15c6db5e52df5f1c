package io.switchboard.internal.memory;

import io.switchboard.BackPressureException;
import io.switchboard.PublishException;
import io.switchboard.StartPosition;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.SendResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A topic of the in-memory broker: partitions chosen by key hash (round robin without a key),
 * consumer groups with committed offsets per partition, and a bound on retained messages. A message
 * is retained until every consumer group has acknowledged it; with no group at all, until the
 * bound is reached, after which publishers wait. One lock guards the topic.
 */
final class MemoryTopic {

    final String name;
    final int partitionCount;
    private final int capacity;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    private final Partition[] partitions;
    private final Map<String, MemoryGroup> groups = new HashMap<>();
    private int retained;
    private int roundRobin;
    private boolean deleted;
    /** Delayed records not due yet, earliest first (ties in publish order); counted in {@code retained}. */
    private final PriorityQueue<Delayed> delayed = new PriorityQueue<>();
    private long delayedSeq;

    MemoryTopic(String name, int partitionCount, int capacity) {
        this.name = name;
        this.partitionCount = partitionCount;
        this.capacity = capacity;
        this.partitions = new Partition[partitionCount];
        for (int i = 0; i < partitionCount; i++) {
            partitions[i] = new Partition();
        }
    }

    SendResult append(OutboundRecord record, long timeoutNanos) {
        lock.lock();
        try {
            long wait = timeoutNanos;
            while (retained >= capacity && !deleted) {
                if (wait <= 0) {
                    throw new BackPressureException("Memory broker destination '" + name + "' holds its capacity of "
                            + capacity + " unconsumed messages and no space came within "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms; consume faster, raise memory.capacity "
                            + "or memory.publish-timeout, or publish more slowly");
                }
                wait = changed.awaitNanos(wait);
            }
            if (deleted) {
                throw new PublishException("Memory broker destination '" + name + "' was deleted; provision it again");
            }
            int p = record.key() != null
                    ? (record.key().hashCode() & 0x7fffffff) % partitionCount
                    : (roundRobin++ & 0x7fffffff) % partitionCount;
            long now = System.currentTimeMillis();
            Stored stored = new Stored(record.key(), record.headers(), record.payload(), now);
            retained++;
            changed.signalAll();
            if (record.deliverAtEpochMillis() > now) {
                delayed.add(new Delayed(record.deliverAtEpochMillis(), delayedSeq++, p, stored));
                return new SendResult(p, -1);
            }
            return new SendResult(p, partitions[p].append(stored));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("Interrupted while waiting for space in memory destination '" + name + "'", e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: appends the delayed records that are due to their partitions (in due order).
     *
     * @return nanoseconds until the next delayed record is due, or {@code Long.MAX_VALUE} when none waits
     */
    long promoteDue() {
        if (delayed.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long now = System.currentTimeMillis();
        Delayed head;
        while ((head = delayed.peek()) != null && head.dueMillis <= now) {
            delayed.poll();
            partitions[head.partition].append(head.stored);
        }
        return head == null ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(head.dueMillis - now);
    }

    /**
     * Under the lock: the group; a new one starts at {@code from}, by default at the earliest retained offsets (the end
     * for broadcast). An existing group keeps its positions whatever {@code from} says.
     */
    MemoryGroup joinGroup(String group, boolean broadcast, StartPosition from) {
        return groups.computeIfAbsent(group, g -> {
            StartPosition.Kind kind = from != null ? from.kind()
                    : broadcast ? StartPosition.Kind.LATEST : StartPosition.Kind.EARLIEST;
            long[] start = new long[partitionCount];
            for (int p = 0; p < partitionCount; p++) {
                Partition partition = partitions[p];
                start[p] = switch (kind) {
                    case EARLIEST -> partition.base;
                    case LATEST -> partition.end();
                    case OFFSET -> Math.max(partition.base, Math.min(from.offset(), partition.end()));
                    case TIME -> partition.firstAtOrAfter(from.time().toEpochMilli());
                };
            }
            return new MemoryGroup(g, broadcast, start);
        });
    }

    /** Under the lock: forgets an empty broadcast group so it no longer holds messages. */
    void leaveGroup(MemoryGroup group) {
        if (group.broadcast && group.members.isEmpty()) {
            groups.remove(group.name);
            trim();
        }
    }

    /** Under the lock. */
    Stored get(int partition, long offset) {
        return partitions[partition].get(offset);
    }

    /** Under the lock. */
    long end(int partition) {
        return partitions[partition].end();
    }

    /** Under the lock: drops messages every group has acknowledged. */
    void trim() {
        if (groups.isEmpty()) {
            return;
        }
        boolean freed = false;
        for (int p = 0; p < partitionCount; p++) {
            long min = Long.MAX_VALUE;
            for (MemoryGroup g : groups.values()) {
                min = Math.min(min, g.committed[p]);
            }
            int dropped = partitions[p].dropBefore(min);
            retained -= dropped;
            freed |= dropped > 0;
        }
        if (freed) {
            changed.signalAll();
        }
    }

    boolean isDeleted() {
        return deleted;
    }

    void delete() {
        List<MemoryConsumer> members = new ArrayList<>();
        lock.lock();
        try {
            deleted = true;
            groups.values().forEach(g -> members.addAll(g.members));
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        members.forEach(m -> m.fail("destination '" + name + "' was deleted"));
    }

    /** A stored message. */
    record Stored(String key, Map<String, String> headers, byte[] payload, long timestamp) {}

    /** A delayed message waiting for its time. */
    private record Delayed(long dueMillis, long seq, int partition, Stored stored) implements Comparable<Delayed> {
        @Override
        public int compareTo(Delayed o) {
            int c = Long.compare(dueMillis, o.dueMillis);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** One partition's log; entries before {@code head} have been dropped. */
    private static final class Partition {
        private final ArrayList<Stored> log = new ArrayList<>();
        private int head;
        long base;

        long append(Stored stored) {
            log.add(stored);
            return end() - 1;
        }

        long end() {
            return base + (log.size() - head);
        }

        /** The offset of the first retained record stored at or after the time, or the end when none is. */
        long firstAtOrAfter(long epochMillis) {
            for (long offset = base; offset < end(); offset++) {
                if (get(offset).timestamp() >= epochMillis) {
                    return offset;
                }
            }
            return end();
        }

        Stored get(long offset) {
            return log.get(head + (int) (offset - base));
        }

        int dropBefore(long offset) {
            int n = (int) Math.max(0, Math.min(offset, end()) - base);
            for (int i = 0; i < n; i++) {
                log.set(head + i, null);
            }
            head += n;
            base += n;
            if (head > 4096 && head > log.size() / 2) {
                log.subList(0, head).clear();
                head = 0;
            }
            return n;
        }
    }

    /** A consumer group's position in the topic; guarded by the topic lock. */
    static final class MemoryGroup {
        final String name;
        final boolean broadcast;
        final long[] next;
        final long[] committed;
        final TreeSet<Long>[] acked;
        final TreeSet<Long>[] redeliver;
        final List<Map<Long, Integer>> deliveries;
        final List<MemoryConsumer> members = new ArrayList<>();

        @SuppressWarnings("unchecked")
        MemoryGroup(String name, boolean broadcast, long[] start) {
            this.name = name;
            this.broadcast = broadcast;
            this.next = start.clone();
            this.committed = start.clone();
            this.acked = new TreeSet[start.length];
            this.redeliver = new TreeSet[start.length];
            this.deliveries = new ArrayList<>(start.length);
            for (int p = 0; p < start.length; p++) {
                acked[p] = new TreeSet<>();
                redeliver[p] = new TreeSet<>();
                deliveries.add(new HashMap<>());
            }
        }

        /** Marks an offset acknowledged and advances the committed offset over contiguous acks. */
        void ack(int partition, long offset) {
            redeliver[partition].remove(offset);
            deliveries.get(partition).remove(offset);
            if (offset < committed[partition]) {
                return;
            }
            acked[partition].add(offset);
            while (acked[partition].remove(committed[partition])) {
                committed[partition]++;
            }
        }

        /** Partitions of the member at {@code index} when partitions are spread round robin. */
        boolean assigned(MemoryConsumer member, int partition) {
            int index = members.indexOf(member);
            return index >= 0 && partition % members.size() == index;
        }
    }
}
