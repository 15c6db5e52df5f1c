package io.switchboard.kafka.internal.consume;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.kafka.internal.provision.KafkaProvisioner;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one topic for one consumer group with a {@link KafkaConsumer} owned by one poll thread.
 *
 * <p>The poll thread hands records to core in offset order per partition, at most
 * {@link ConsumerSpec#maxInFlight()} unsettled at a time; what does not fit waits in the partition's
 * buffer while every assigned partition is paused, and fetching resumes when core has settled
 * enough. Acks come from any thread and only flip a flag; the poll thread commits, every
 * {@code kafka.commit-interval}, the offset of the first unacked record of each partition. A nack
 * rewinds its partition to the nacked record. When partitions are revoked, what was processed is
 * committed first; {@link #close()} commits what was acked and leaves the group, so the rest is
 * delivered again. At-most-once commits the offsets of records before handing them over. A record the
 * subscription's tag filter drops ({@link TagMatcher}) is never handed over and counts as processed.
 */
public final class KafkaRawConsumer implements RawConsumer, ConsumerRebalanceListener, KafkaInboundRecord.Settlement {

    private static final Logger log = LoggerFactory.getLogger(KafkaRawConsumer.class);

    private final ConsumerSpec spec;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProvisioner admin;
    private final Duration pollTimeout;
    private final Duration closeTimeout;
    private final OffsetCommitter committer;
    private final boolean commitBeforeDelivery;
    private final Consumer<AutoCloseable> onClosed;
    /** The subscription's tag filter, or null when every record passes. */
    private final TagMatcher tags;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean waitingForSettlement = new AtomicBoolean();
    private final ConcurrentLinkedQueue<KafkaInboundRecord> nacked = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean stopped;
    private volatile boolean closing;
    private volatile Thread pollThread;
    private RecordListener listener;

    // poll thread only
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();

    /** The poll thread's name: the instance's ({@link KafkaClientConfig#threadName}). */
    private final String threadName;

    public KafkaRawConsumer(ConsumerSpec spec, KafkaClientConfig config, KafkaProvisioner admin, Consumer<AutoCloseable> onClosed) {
        this.spec = spec;
        this.admin = admin;
        this.onClosed = onClosed;
        this.threadName = config.threadName(spec.destination() + "-" + spec.group());
        this.commitBeforeDelivery = spec.delivery() == Delivery.AT_MOST_ONCE;
        this.tags = TagMatcher.of(spec.filter());
        this.pollTimeout = config.duration("poll-timeout", Duration.ofMillis(100), spec.properties());
        this.closeTimeout = config.duration("close-timeout", Duration.ofSeconds(30), spec.properties());
        Map<String, Object> clientConfig = config.consumer(spec.group(), spec.delivery(), spec.broadcast(),
                spec.maxInFlight(), spec.properties());
        try {
            this.consumer = new KafkaConsumer<>(clientConfig);
        } catch (KafkaException e) {
            throw new ConfigurationException("Broker instance '" + config.brokerConfig().instanceName() + "' (kafka): "
                    + "cannot create a consumer for topic '" + spec.destination() + "': " + e.getMessage()
                    + "; check the kafka.* properties", e);
        }
        this.committer = new OffsetCommitter(consumer, spec.group(),
                config.duration("commit-interval", Duration.ofMillis(100), spec.properties()), closeTimeout);
    }

    @Override
    public CompletionStage<Void> start(RecordListener recordListener) {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("Kafka consumer of '" + spec.destination() + "' was started already");
        }
        this.listener = recordListener;
        Thread thread = DaemonThreads.newThread(threadName, this::run);
        pollThread = thread;
        thread.start();
        return ready;
    }

    /**
     * Agrees to core running the handler on the poll thread (as a plain Kafka poll loop, or Spring
     * Kafka's listener container, does) when the subscription handles one record at a time: the
     * thread is the consumer's own, delivers each partition in offset order, and acks from inside
     * the handler only flip flags that the same thread reads next. A handler slower than
     * {@code max.poll.interval.ms} (five minutes by default) costs the group membership, as it would
     * natively. Higher concurrency keeps core's lanes, which spread partitions over threads.
     */
    @Override
    public boolean handleOnDeliveryThreads(int concurrency) {
        return concurrency == 1;
    }

    // ---- the poll thread ----

    private void run() {
        try {
            consumer.subscribe(List.of(spec.destination()), this);
            while (!closing) {
                settle();
                if (!stopped) {
                    deliver();
                }
                boolean saturated = flowControl();
                committer.maybeCommitAsync(partitions);
                if (saturated && !awaitSettlement()) {
                    continue;
                }
                poll();
            }
            settle();
            committer.commitSync(partitions.values());
        } catch (RuntimeException e) {
            if (!closing) {
                log.error("Kafka consumer of '{}' (group '{}') failed", spec.destination(), spec.group(), e);
                ready.completeExceptionally(e);
                listener.onFailure(e);
            }
        } finally {
            partitions.values().forEach(PartitionState::revoke);
            partitions.clear();
            closeClient();
        }
    }

    private void poll() {
        try {
            ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
            for (TopicPartition partition : records.partitions()) {
                PartitionState state = partitions.get(partition);
                if (state != null) {
                    state.fetched(records.records(partition));
                }
            }
        } catch (WakeupException e) {
            // woken up to settle, stop or close
        }
    }

    /** Applies nacks (rewinding partitions) and moves each partition's committable offset past its acked records. */
    private void settle() {
        KafkaInboundRecord record;
        while ((record = nacked.poll()) != null) {
            TopicPartition partition = new TopicPartition(record.destination(), record.partition());
            PartitionState state = partitions.get(partition);
            if (state != null && state.rewind(record) && !stopped) {
                consumer.seek(partition, record.offset());
            }
        }
        for (PartitionState state : partitions.values()) {
            state.advance();
        }
    }

    /** Hands fetched records to core while fewer than maxInFlight are unsettled. */
    private void deliver() {
        int budget = spec.maxInFlight() - inFlight.get();
        if (budget <= 0) {
            return;
        }
        if (commitBeforeDelivery) {
            deliverCommittedFirst(budget);
            return;
        }
        for (PartitionState state : partitions.values()) {
            while (budget > 0 && state.hasFetched()) {
                ConsumerRecord<byte[], byte[]> fetched = state.nextFetched();
                if (tags != null && !tags.matches(fetched)) {
                    state.filtered(fetched.offset());
                    listener.onFiltered();
                    continue;
                }
                KafkaInboundRecord record = new KafkaInboundRecord(fetched, state.deliveryCount(fetched.offset()), this, false);
                state.delivered(record);
                inFlight.incrementAndGet();
                budget--;
                listener.onRecord(record);
            }
        }
    }

    /** At-most-once: commits the records' offsets, then hands them over; a failed commit drops them. */
    private void deliverCommittedFirst(int budget) {
        Map<PartitionState, List<ConsumerRecord<byte[], byte[]>>> chunks = new LinkedHashMap<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionState state : partitions.values()) {
            while (budget > 0 && state.hasFetched()) {
                ConsumerRecord<byte[], byte[]> fetched = state.nextFetched();
                chunks.computeIfAbsent(state, s -> new ArrayList<>()).add(fetched);
                offsets.put(state.partition(), new OffsetAndMetadata(fetched.offset() + 1));
                budget--;
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        if (!committer.commitBeforeDelivery(offsets)) {
            return;
        }
        chunks.forEach((state, records) -> {
            state.committedBeforeDelivery(records.get(records.size() - 1).offset() + 1);
            for (ConsumerRecord<byte[], byte[]> fetched : records) {
                if (tags != null && !tags.matches(fetched)) {
                    listener.onFiltered();
                    continue;
                }
                inFlight.incrementAndGet();
                listener.onRecord(new KafkaInboundRecord(fetched, 1, this, true));
            }
        });
    }

    /**
     * Pauses every assigned partition while records wait for room (or after stop), resumes them otherwise.
     *
     * @return true when the consumer waits for core to settle records
     */
    private boolean flowControl() {
        boolean full = stopped;
        for (PartitionState state : partitions.values()) {
            full |= state.hasFetched();
        }
        if (full) {
            Set<TopicPartition> toPause = new HashSet<>(consumer.assignment());
            toPause.removeAll(consumer.paused());
            if (!toPause.isEmpty()) {
                consumer.pause(toPause);
            }
        } else {
            Set<TopicPartition> paused = consumer.paused();
            if (!paused.isEmpty()) {
                consumer.resume(paused);
            }
        }
        return full && !stopped;
    }

    /** Arms the wake-up an ack gives; false when room appeared meanwhile (deliver at once instead of polling). */
    private boolean awaitSettlement() {
        waitingForSettlement.set(true);
        if (inFlight.get() < spec.maxInFlight()) {
            waitingForSettlement.set(false);
            return false;
        }
        return true;
    }

    private void closeClient() {
        try {
            consumer.close(CloseOptions.timeout(closeTimeout));
        } catch (RuntimeException e) {
            log.warn("Closing the Kafka consumer of '{}' failed", spec.destination(), e);
        }
        if (spec.broadcast()) {
            admin.deleteGroupQuietly(spec.group());
        }
    }

    // ---- rebalance callbacks: on the poll thread, inside poll() ----

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        for (TopicPartition partition : assigned) {
            long[] position = new long[1];
            OffsetCommitter.retryOnWakeup(() -> position[0] = consumer.position(partition));
            partitions.put(partition, new PartitionState(partition, position[0]));
        }
        log.debug("Consumer of '{}' in group '{}' got partitions {}", spec.destination(), spec.group(), assigned);
        ready.complete(null);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        settle();
        List<PartitionState> states = revoked.stream().map(partitions::get).filter(Objects::nonNull).toList();
        committer.commitSync(states);
        forget(revoked);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        log.warn("Consumer of '{}' in group '{}' lost partitions {}; their unacked records will be delivered again",
                spec.destination(), spec.group(), lost);
        forget(lost);
    }

    private void forget(Collection<TopicPartition> gone) {
        for (TopicPartition partition : gone) {
            PartitionState state = partitions.remove(partition);
            if (state != null) {
                state.revoke();
            }
        }
    }

    // ---- settlement: any thread, never blocks ----

    @Override
    public void settled(KafkaInboundRecord record, boolean ack) {
        inFlight.decrementAndGet();
        if (!ack) {
            nacked.add(record);
            if (!stopped) {
                consumer.wakeup();
            }
        } else if (waitingForSettlement.get() && waitingForSettlement.compareAndSet(true, false)) {
            consumer.wakeup();
        }
    }

    // ---- life cycle ----

    @Override
    public void stop() {
        stopped = true;
        if (started.get()) {
            consumer.wakeup();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stopped = true;
        closing = true;
        try {
            Thread thread = pollThread;
            if (thread == null) {
                consumer.close(CloseOptions.timeout(Duration.ZERO));
                return;
            }
            consumer.wakeup();
            thread.join(closeTimeout.toMillis() + TimeUnit.SECONDS.toMillis(5));
            if (thread.isAlive()) {
                log.warn("Kafka consumer of '{}' did not close within {}", spec.destination(), closeTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ready.completeExceptionally(new IllegalStateException("closed before it was ready"));
            onClosed.accept(this);
        }
    }

    @Override
    public OptionalLong backlog() {
        Map<Integer, Long> lag = admin.lag(spec.destination(), spec.group());
        return lag.isEmpty() ? OptionalLong.empty() : OptionalLong.of(lag.values().stream().mapToLong(Long::longValue).sum());
    }

    @Override
    public String toString() {
        return "KafkaRawConsumer[" + spec.destination() + ", group " + spec.group() + ", " + spec.delivery() + "]";
    }
}
