package io.switchboard.kafka.internal.consume;

import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One subscription as core sees it ({@link RawConsumer}): one topic of a {@link GroupConsumer}, which may poll other
 * topics of the same group for other subscriptions. It keeps what is the subscription's own: its listener, its tag
 * filter, its {@code maxInFlight} budget, its stop and its readiness; its partitions are paused and resumed on their
 * own, so a saturated or stopped subscription holds back only itself.
 *
 * <p>Records reach the listener on the group consumer's poll thread when the consumer is the subscription's own
 * (as a plain Kafka poll loop does) or while the subscription is the shared consumer's only one with one unit of
 * concurrency, or else on the adapter's {@link DeliveryPool} through {@code concurrency} serial queues (a partition
 * always goes to the same queue), so that a slow handler never holds the other subscriptions' records.
 */
public final class Attachment implements RawConsumer, KafkaInboundRecord.Settlement {

    final ConsumerSpec spec;
    /** The subscription's key format, resolved once. */
    final KeyFormat keys;
    final TagMatcher tags;
    private final GroupConsumer group;
    private final DeliveryPool pool;
    private final Consumer<AutoCloseable> onClosed;

    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicBoolean waitingForSettlement = new AtomicBoolean();
    final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    volatile boolean stopped;
    volatile RecordListener listener;
    /** The serial queues on the delivery pool, or null when records are handed over on the poll thread. */
    private volatile SerialQueue[] queues;

    // poll thread only
    /** The partitions of this subscription's topic this member holds. */
    final List<PartitionState> owned = new ArrayList<>();
    /** Whether this is the only subscription its group consumer serves ({@link GroupConsumer} sets it). */
    boolean alone;
    /** Whether an assignment since the attach took this subscription's topic into account ({@link GroupConsumer}). */
    boolean assigned;

    Attachment(ConsumerSpec spec, KeyFormat keys, GroupConsumer group, DeliveryPool pool, Consumer<AutoCloseable> onClosed) {
        this.spec = spec;
        this.keys = keys;
        this.group = group;
        this.pool = pool;
        this.onClosed = onClosed;
        this.tags = TagMatcher.of(spec.filter());
    }

    String topic() {
        return spec.destination();
    }

    @Override
    public CompletionStage<Void> start(RecordListener recordListener) {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("Kafka consumer of '" + spec.destination() + "' was started already");
        }
        this.listener = recordListener;
        group.attach(this);
        return ready;
    }

    /**
     * A consumer of its own agrees for one record at a time (its poll thread runs the handler, as a plain Kafka poll
     * loop or Spring Kafka's listener container does); higher concurrency keeps core's lanes. A shared consumer agrees
     * for any concurrency and runs the handler on the adapter's delivery pool, one serial queue per unit of
     * concurrency, never on the poll thread the other subscriptions need.
     */
    @Override
    public boolean handleOnDeliveryThreads(int concurrency) {
        if (!group.shared()) {
            return concurrency == 1;
        }
        SerialQueue[] made = new SerialQueue[concurrency];
        for (int i = 0; i < concurrency; i++) {
            made[i] = new SerialQueue(this, pool);
        }
        queues = made;
        return true;
    }

    /**
     * Poll thread: hands one record over, counting it in flight. A shared consumer's only subscription, with one unit
     * of concurrency, gets its records on the poll thread as an unshared one does (no hand-off, no wake-up of a pool
     * thread), once its serial queue is idle, so a partition's records still reach the handler in order; when a second
     * subscription joins the consumer, records go through the queue again.
     */
    void dispatch(KafkaInboundRecord record) {
        inFlight.incrementAndGet();
        SerialQueue[] lanes = queues;
        if (lanes == null) {
            listener.onRecord(record);
        } else if (alone && lanes.length == 1 && lanes[0].idle()) {
            SerialQueue.handOver(this, record);
        } else {
            lanes[lanes.length == 1 ? 0 : record.partition() % lanes.length].offer(record);
        }
    }

    boolean closed() {
        return closed.get();
    }

    // ---- settlement: any thread, never blocks ----

    @Override
    public void settled(KafkaInboundRecord record, boolean ack) {
        inFlight.decrementAndGet();
        if (!ack) {
            group.nacked(record, !stopped);
        } else if (waitingForSettlement.get() && waitingForSettlement.compareAndSet(true, false)) {
            group.wakeup();
        }
    }

    // ---- life cycle ----

    @Override
    public void stop() {
        stopped = true;
        if (started.get()) {
            group.wakeup();
        }
    }

    /** Commits what this subscription acked, gives its partitions up (leaving the group with the last one). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stopped = true;
        try {
            group.detach(this, started.get());
        } finally {
            ready.completeExceptionally(new IllegalStateException("closed before it was ready"));
            onClosed.accept(this);
        }
    }

    /** The group consumer failed: this subscription ends. */
    void failed(RuntimeException error) {
        ready.completeExceptionally(error);
        if (!closed.get()) {
            RecordListener l = listener;
            if (l != null) {
                l.onFailure(error);
            }
        }
    }

    @Override
    public OptionalLong backlog() {
        Map<Integer, Long> lag = group.lag(spec.destination());
        return lag.isEmpty() ? OptionalLong.empty() : OptionalLong.of(lag.values().stream().mapToLong(Long::longValue).sum());
    }

    @Override
    public String toString() {
        return "KafkaRawConsumer[" + spec.destination() + ", group " + spec.group() + ", " + spec.delivery() + "]";
    }
}
