package io.switchboard.kafka.internal.consume;

import io.switchboard.Delivery;
import io.switchboard.kafka.internal.provision.KafkaProvisioner;
import io.switchboard.spi.ClientEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link KafkaConsumer} of one consumer group, owned by one poll thread, reading the topics of the subscriptions
 * ({@link Attachment}s) attached to it: one when it is a subscription's own, any number of distinct topics when it is
 * shared ({@link GroupConsumers}).
 *
 * <p>The poll thread hands records over in offset order per partition, each subscription at most its
 * {@code maxInFlight} unsettled; what does not fit waits in the partition's buffer while that subscription's
 * partitions (only those) are paused. Acks come from any thread and only flip a flag; the poll thread commits, every
 * {@code kafka.commit-interval}, the offset of the first unacked record of each partition. A nack rewinds its
 * partition. When partitions are revoked, what was processed is committed first. At-most-once commits the offsets of
 * records before handing them over. A record a subscription's tag filter drops is never handed over and counts as
 * processed. Attaching and detaching are commands the poll thread applies at the top of its loop, with one
 * {@code subscribe} of the union of the topics per round, so a burst of subscriptions costs one or a few rebalances.
 * Detaching commits the subscription's partitions and gives its topic up; the last one closes the client and ends
 * the thread. After a busy poll the next one lingers ({@link FetchLinger}), so that a busy consumer's fetches carry more.
 */
public final class GroupConsumer implements ConsumerRebalanceListener {

    private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);
    /** The longest poll while a partition waits for its start position, so that readiness follows the lookup closely. */
    private static final Duration POSITION_CHECK = Duration.ofMillis(20);

    private final String group;
    private final boolean shared;
    private final boolean broadcast;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProvisioner admin;
    private final Duration pollTimeout;
    private final Duration closeTimeout;
    private final Duration revokeDrain;
    private final OffsetCommitter committer;
    private final String threadName;
    private final GroupConsumers registry;
    private final DeliveryPool pool;
    private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<KafkaInboundRecord> nacked = new ConcurrentLinkedQueue<>();
    /** The topics of the attachments made for this consumer and not yet closed; guarded by the registry. */
    final Set<String> reserved = new HashSet<>();
    /** Set by the registry once no attachment is left: the poll thread closes the client and ends. */
    volatile boolean retired;
    private volatile boolean ended;
    private volatile Thread pollThread; // written under this
    private boolean clientClosed; // guarded by this

    // poll thread only
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final Map<String, Attachment> attached = new LinkedHashMap<>();
    private Set<String> subscribed = Set.of();
    private final RoundDelivery delivery;
    private final FetchLinger linger;
    private final Readiness readiness;
    private final RebalanceEvents rebalances;
    private final ClusterWatch cluster;

    GroupConsumer(Settings settings, KafkaConsumer<byte[], byte[]> consumer, KafkaProvisioner admin, GroupConsumers registry,
            DeliveryPool pool) {
        this.group = settings.group();
        this.shared = settings.shared();
        this.broadcast = settings.broadcast();
        this.consumer = consumer;
        this.admin = admin;
        this.registry = registry;
        this.pool = pool;
        this.threadName = settings.threadName();
        this.pollTimeout = settings.pollTimeout();
        this.closeTimeout = settings.closeTimeout();
        this.revokeDrain = settings.revokeDrain();
        this.committer = new OffsetCommitter(consumer, group, settings.commitInterval(), closeTimeout);
        this.delivery = new RoundDelivery(consumer, committer, settings.delivery() == Delivery.AT_MOST_ONCE, attached);
        this.linger = settings.linger();
        this.readiness = new Readiness(consumer, partitions, attached);
        this.rebalances = new RebalanceEvents(settings.events(), group, consumer);
        this.cluster = new ClusterWatch(consumer, settings.events(), group);
    }

    /** What a group consumer is made with. */
    record Settings(String group, Delivery delivery, boolean shared, boolean broadcast, String threadName,
            Duration pollTimeout, Duration commitInterval, Duration closeTimeout, Duration revokeDrain, FetchLinger linger,
            ClientEvents events) {}

    boolean shared() {
        return shared;
    }

    /** Per partition of the topic: end offset minus the group's committed offset. */
    Map<Integer, Long> lag(String topic) {
        return admin.lag(topic, group);
    }

    // ---- commands: any thread ----

    private record Command(Attachment attachment, boolean attach, CompletableFuture<Void> done) {}

    void attach(Attachment attachment) {
        commands.add(new Command(attachment, true, null));
        synchronized (this) {
            if (pollThread == null && !clientClosed) {
                pollThread = io.switchboard.spi.DaemonThreads.newThread(threadName, this::run);
                pollThread.start();
            }
        }
        if (ended) {
            attachment.failed(new IllegalStateException("the Kafka consumer of group '" + group + "' has ended"));
        } else {
            wakeup();
        }
    }

    /** Commits the attachment's partitions and gives its topic up; with the last one, closes the client. */
    void detach(Attachment attachment, boolean started) {
        boolean last = registry.release(this, attachment.topic(), true);
        Thread thread;
        synchronized (this) {
            thread = pollThread;
        }
        if (started && thread != null && !ended) {
            Command command = new Command(attachment, false, new CompletableFuture<>());
            commands.add(command);
            if (!ended) {
                wakeup();
                await(command.done());
            }
        }
        if (!last) {
            last = registry.release(this, attachment.topic(), false);
        }
        if (last) {
            retire();
        }
    }

    private void await(CompletableFuture<Void> done) {
        try {
            done.get(closeTimeout.toMillis() + TimeUnit.SECONDS.toMillis(5), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            log.warn("Kafka consumer of group '{}' did not let a subscription go within {}", group, closeTimeout);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Closes the client: on the poll thread, waited for, or here when the thread never started. */
    private void retire() {
        Thread thread;
        synchronized (this) {
            thread = pollThread;
            if (thread == null) {
                clientClosed = true;
            }
        }
        if (thread == null) {
            closeClient(Duration.ZERO);
            return;
        }
        wakeup();
        try {
            thread.join(closeTimeout.toMillis() + TimeUnit.SECONDS.toMillis(5));
            if (thread.isAlive()) {
                log.warn("Kafka consumer of group '{}' did not close within {}", group, closeTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void wakeup() {
        consumer.wakeup();
        Thread thread = pollThread;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /** A record was nacked: the poll thread rewinds its partition. */
    void nacked(KafkaInboundRecord record, boolean wake) {
        nacked.add(record);
        if (wake) {
            wakeup();
        }
    }

    // ---- the poll thread ----

    private void run() {
        try {
            while (true) {
                applyCommands();
                if (attached.isEmpty()) {
                    if (retired) {
                        break;
                    }
                    LockSupport.parkNanos(pollTimeout.toNanos());
                    continue;
                }
                settle();
                delivery.deliver();
                boolean room = delivery.flowControl();
                committer.maybeCommitAsync(partitions);
                if (shared) {
                    pool.check();
                }
                if (!room) {
                    linger.await();
                }
                poll(room ? Duration.ZERO : readiness.unpositioned() > 0 ? POSITION_CHECK : pollTimeout);
                readiness.resolve();
                cluster.check();
            }
            settle();
            commitOnLeaving();
        } catch (RuntimeException e) {
            if (!retired) {
                log.error("Kafka consumer of group '{}' (topics {}) failed", group, attached.keySet(), e);
                registry.ended(this);
                attached.values().forEach(a -> a.failed(e));
            }
        } finally {
            ended = true;
            partitions.values().forEach(PartitionState::revoke);
            partitions.clear();
            rebalances.leaving();
            closeClient(closeTimeout);
            rebalances.left();
            cluster.end();
            Command left;
            while ((left = commands.poll()) != null) {
                if (left.done() != null) {
                    left.done().complete(null);
                }
            }
        }
    }

    /** The last commit; one a rebalance refused (closes before the last changed the subscription) waits it out, paused. */
    private void commitOnLeaving() {
        committer.commitSync(partitions.values());
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        while (partitions.values().stream().anyMatch(state -> state.commitNeeded() >= 0) && System.nanoTime() < deadline) {
            consumer.pause(consumer.assignment());
            poll(Duration.ofMillis(100));
            settle();
            committer.commitSync(partitions.values());
        }
    }

    /** Applies attach and detach commands, then subscribes once to the union of the attached topics. */
    private void applyCommands() {
        boolean added = false;
        boolean changed = false;
        Command command;
        while ((command = commands.poll()) != null) {
            Attachment attachment = command.attachment();
            if (command.attach()) {
                if (!attachment.closed()) {
                    attached.put(attachment.topic(), attachment);
                    adoptPartitions(attachment);
                    added = true;
                    changed = true;
                }
            } else {
                changed |= detachNow(attachment);
                command.done().complete(null);
            }
        }
        if (!changed) {
            return;
        }
        for (Attachment a : attached.values()) {
            a.alone = attached.size() == 1;
        }
        Set<String> union = Set.copyOf(attached.keySet());
        if (union.isEmpty()) {
            if (!retired) {
                rebalances.leaving();
                consumer.unsubscribe();
                subscribed = union;
                rebalances.left();
            }
        } else if (!union.equals(subscribed)) {
            consumer.subscribe(union, this);
            subscribed = union;
        } else if (added) {
            consumer.enforceRebalance("a subscription attached"); // its readiness needs a completed rebalance
        }
    }

    /** Partitions of the attachment's topic still held from an earlier subscription of it (paused since). */
    private void adoptPartitions(Attachment attachment) {
        for (PartitionState state : partitions.values()) {
            if (state.partition().topic().equals(attachment.topic())) {
                attachment.owned.add(state);
            }
        }
    }

    /** Commits what the attachment acked, pauses its partitions and rewinds them to that offset; true when it was attached. */
    private boolean detachNow(Attachment attachment) {
        if (attached.get(attachment.topic()) != attachment) {
            return false;
        }
        attached.remove(attachment.topic());
        settle();
        committer.commitSync(attachment.owned);
        List<TopicPartition> held = new ArrayList<>();
        for (PartitionState state : attachment.owned) {
            state.revoke();
            held.add(state.partition());
            if (state.positioned()) { // else nothing was fetched: the client's position is still where it starts
                consumer.seek(state.partition(), state.committable());
            }
        }
        attachment.owned.clear();
        if (!held.isEmpty()) {
            consumer.pause(held);
        }
        return true;
    }

    private void poll(Duration timeout) {
        try {
            ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
            if (!records.isEmpty()) {
                linger.polled(records.count(), System.nanoTime());
            }
            for (TopicPartition partition : records.partitions()) {
                PartitionState state = partitions.get(partition);
                if (state != null) {
                    state.fetched(records.records(partition));
                }
            }
            if (rebalances.awaitingFetch()) {
                rebalances.polled(records.partitions());
            }
        } catch (WakeupException e) {
            // woken up to settle, stop, attach or detach
        }
    }

    /** Applies nacks (rewinding partitions) and moves each partition's committable offset past its acked records. */
    private void settle() {
        KafkaInboundRecord record;
        while ((record = nacked.poll()) != null) {
            TopicPartition partition = new TopicPartition(record.destination(), record.partition());
            PartitionState state = partitions.get(partition);
            Attachment owner = attached.get(record.destination());
            if (state != null && state.rewind(record) && owner != null && !owner.stopped) {
                consumer.seek(partition, record.offset());
            }
        }
        for (PartitionState state : partitions.values()) {
            state.advance();
        }
    }

    private void closeClient(Duration timeout) {
        try {
            consumer.close(CloseOptions.timeout(timeout));
        } catch (RuntimeException e) {
            log.warn("Closing the Kafka consumer of group '{}' failed", group, e);
        }
        if (broadcast) {
            admin.deleteGroupQuietly(group);
        }
    }

    // ---- rebalance callbacks: on the poll thread, inside poll() ----

    /**
     * New partitions get their start positions now or after a later poll ({@link Readiness}); those of a subscription
     * starting at an offset or a time, without a committed offset, are sought there first ({@link StartSeek}).
     */
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        StartSeek.apply(consumer, group, attached, assigned.stream().filter(p -> !partitions.containsKey(p)).toList());
        List<TopicPartition> unowned = new ArrayList<>();
        boolean lookupPending = false;
        for (TopicPartition partition : assigned) {
            if (partitions.containsKey(partition)) {
                continue;
            }
            long position = readiness.assigned(partition, !lookupPending); // the lookups of one answer come together
            lookupPending |= position < 0;
            PartitionState state = new PartitionState(partition, position);
            partitions.put(partition, state);
            Attachment owner = attached.get(partition.topic());
            if (owner == null) {
                unowned.add(partition);
            } else {
                owner.owned.add(state);
            }
        }
        if (!unowned.isEmpty()) {
            consumer.pause(unowned); // of a topic given up since: held until the rebalance takes it away
        }
        int unpositioned = readiness.unpositioned();
        log.debug("Consumer of group '{}' got partitions {}{}", group, assigned, unpositioned > 0 ? " (" + unpositioned
                + " still without a start position)" : "");
        readiness.afterAssignment();
        cluster.assigned();
        rebalances.assigned();
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        if (!revoked.isEmpty()) {
            rebalances.revoked(revoked, false);
        }
        settle();
        List<PartitionState> states = revoked.stream().map(partitions::get).filter(Objects::nonNull).toList();
        if (shared) {
            drain(states);
        }
        committer.commitSync(states);
        forget(revoked);
    }

    /**
     * A shared consumer's partitions are revoked (all of them with an eager assignor the application chose, when any
     * subscription of the key comes or goes): waits up to {@code kafka.revoke-drain-timeout} for the records in flight
     * on them to settle, so that what was handled is committed rather than delivered again. Records fetched and not
     * handed out are dropped (fetched again by the next owner), never duplicated.
     */
    private void drain(List<PartitionState> states) {
        long deadline = System.nanoTime() + revokeDrain.toNanos();
        while (states.stream().anyMatch(PartitionState::inFlight) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            settle();
        }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        if (!lost.isEmpty()) {
            rebalances.revoked(lost, true);
        }
        if (lost.stream().anyMatch(partitions::containsKey)) {
            log.warn("Consumer of group '{}' lost partitions {}; their unacked records will be delivered again", group, lost);
        } else {
            log.debug("Consumer of group '{}' closed during a rebalance; nothing of {} was held", group, lost);
        }
        forget(lost);
    }

    private void forget(Collection<TopicPartition> gone) {
        for (TopicPartition partition : gone) {
            PartitionState state = partitions.remove(partition);
            if (state != null) {
                state.revoke();
                Attachment owner = attached.get(partition.topic());
                if (owner != null) {
                    owner.owned.remove(state);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "GroupConsumer[" + group + (shared ? ", shared" : "") + "]";
    }
}
