package io.switchboard.rocketmq.internal.consume;

import io.switchboard.Delivery;
import io.switchboard.SubscriptionException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.rocketmq.internal.client.PushConsumerShutdown;
import io.switchboard.rocketmq.internal.client.SharedConsumeThreads;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link DefaultMQPushConsumer} for one destination and one group, with RocketMQ's orderly
 * listener ({@link OrderlyListener}), or its concurrent one ({@link ConcurrentListener}) for a group
 * subscription at least once or exactly once with {@code rocketmq.consume-mode=concurrently}.
 *
 * <p>A consumer group is RocketMQ's clustering model; a new group starts from the first retained
 * message, as on every Switchboard broker, or at its start position ({@link StartOffsets}), and a group with
 * offsets resumes from them. A broadcast subscriber uses the broadcasting model, starts at the end of every queue
 * (or its start position) and keeps its offsets in memory only. A consumer runs in the
 * client instance it is given: the adapter's consumers' one, never its producers', or one of its
 * own for a further member of a group.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
public final class RocketMqConsumer implements RawConsumer {

    private static final Logger log = LoggerFactory.getLogger(RocketMqConsumer.class);
    private static final int MAX_BATCH = 32;
    private static final long ROUTE_POLL_MILLIS = 20;
    /** Per subscription still looking: the adapter's retry-route lookups stay a few hundred a second in a burst. */
    private static final long ROUTE_POLL_SPACING_MILLIS = 3;

    private final ConsumerSpec spec;
    private final RocketMqSettings settings;
    private final Producers producers;
    private final SharedConsumeThreads sharedThreads;
    private final MemoryOffsetStore broadcastOffsets;
    private final String group;
    private final String clientName;
    private final Handoff handoff;
    private final DefaultMQPushConsumer consumer;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Consumer<RawConsumer> onClose;
    private final Runnable makeGroup;

    /**
     * @param clientName the RocketMQ client instance to run in: the one the adapter's consumers share
     *     (never its producers'), or a name of its own when the adapter already runs a consumer of the
     *     same group
     * @param sharedThreads the adapter's timer (retry-route lookups) and consume threads (used with rocketmq.share-consume-threads)
     * @param makeGroup run before the consumer starts: makes its group and retry topic where the adapter provisions
     *     (best effort, never throws), or does nothing
     */
    public RocketMqConsumer(ConsumerSpec spec, String group, String clientName, RocketMqSettings settings, Producers producers,
            SharedConsumeThreads sharedThreads, Runnable makeGroup, Consumer<RawConsumer> onClose) {
        this.spec = spec;
        this.makeGroup = makeGroup;
        this.group = group;
        this.clientName = clientName;
        this.onClose = onClose;
        this.settings = settings;
        this.producers = producers;
        this.sharedThreads = sharedThreads;
        this.broadcastOffsets = spec.broadcast() ? new MemoryOffsetStore() : null;
        boolean concurrently = concurrently(spec, settings);
        this.handoff = new Handoff(spec.destination(), !spec.broadcast(), !concurrently, spec.maxInFlight());
        this.consumer = configure(new DefaultMQPushConsumer(group, settings.rpcHook()));
        if (concurrently) {
            consumer.registerMessageListener(new ConcurrentListener(handoff));
        } else {
            consumer.registerMessageListener(new OrderlyListener(handoff, spec.delivery() == Delivery.AT_MOST_ONCE));
        }
    }

    /**
     * Concurrent consumption when asked for, where it keeps the guarantee: RocketMQ drops a
     * broadcast message its concurrent listener gives back, and at-most-once commits each
     * queue's offset before handing out a batch, which needs one batch of a queue at a time.
     */
    private static boolean concurrently(ConsumerSpec spec, RocketMqSettings settings) {
        if (!settings.consumeConcurrently()) {
            return false;
        }
        if (spec.broadcast() || spec.delivery() == Delivery.AT_MOST_ONCE) {
            log.info("Subscription to '{}' (group '{}') is consumed orderly although {}=concurrently: concurrent "
                    + "consumption applies to group subscriptions at least once or exactly once only",
                    spec.destination(), spec.group(), RocketMqSettings.CONSUME_MODE);
            return false;
        }
        return true;
    }

    private DefaultMQPushConsumer configure(DefaultMQPushConsumer c) {
        settings.configure(c, clientName);
        if (spec.broadcast()) {
            c.setMessageModel(MessageModel.BROADCASTING);
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
            c.setOffsetStore(broadcastOffsets);
        } else {
            c.setMessageModel(MessageModel.CLUSTERING);
            c.setConsumeFromWhere(StartOffsets.consumeFromWhere(spec.startFrom()));
            if (spec.startFrom() != null && spec.startFrom().kind() == io.switchboard.StartPosition.Kind.TIME) {
                c.setConsumeTimestamp(StartOffsets.consumeTimestamp(spec.startFrom().time()));
            }
        }
        c.setConsumeThreadMin(settings.consumeThreads());
        c.setConsumeThreadMax(settings.consumeThreads());
        c.setConsumeMessageBatchMaxSize(Math.min(MAX_BATCH, spec.maxInFlight()));
        c.setPullBatchSize(MAX_BATCH);
        c.setPullThresholdForQueue(Math.max(2 * MAX_BATCH, Math.min(1000, spec.maxInFlight())));
        c.setMessageQueueListener(new HeartbeatOnRebalance(c.getDefaultMQPushConsumerImpl(), settings.events(), group));
        c.setAllocateMessageQueueStrategy(new DistinctClients(new AllocateMessageQueueAveragely()));
        // rebalanced here, so it always pulls: its POP consume service stays idle (PushConsumerShutdown.endIdlePopThread)
        c.setClientRebalance(true);
        return c;
    }

    /**
     * Agrees to core running the handler on RocketMQ's consume threads, as a native listener does:
     * they are not network threads, the orderly listener gives each queue to one of them at a time,
     * and the batch they hand over is theirs to wait for anyway. The pool is sized to the
     * subscription's concurrency unless {@code rocketmq.consume-threads} says otherwise (then only
     * a matching concurrency agrees).
     */
    @Override
    public boolean handleOnDeliveryThreads(int concurrency) {
        if (settings.consumeThreadsConfigured()) {
            return settings.consumeThreads() == concurrency;
        }
        consumer.setConsumeThreadMin(concurrency);
        consumer.setConsumeThreadMax(concurrency);
        return true;
    }

    /** Every consume call ends with {@link RecordListener#onHandoffEnd()}, on its consume thread (see {@link Handoff}). */
    @Override
    public boolean endsHandoffs() {
        return true;
    }

    @Override
    public CompletionStage<Void> start(RecordListener listener) {
        if (!started.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new IllegalStateException("RocketMQ consumer of '" + spec.destination()
                    + "' (group '" + spec.group() + "') was started already"));
        }
        handoff.start(consumer, listener);
        try {
            io.switchboard.StartPosition start = spec.startFrom();
            if (broadcastOffsets != null) {
                io.switchboard.StartPosition from = start != null ? start : io.switchboard.StartPosition.latest();
                positionQueues((api, master, queue, timeout) ->
                        broadcastOffsets.startAt(queue, StartOffsets.target(api, master, queue, from, timeout)));
            }
            consumer.subscribe(spec.destination(), spec.filter() == null ? "*" : spec.filter());
            makeGroup.run();
            if (!spec.broadcast() && StartOffsets.written(start)) {
                positionQueues((api, master, queue, timeout) -> {
                    long offset = StartOffsets.startGroup(api, master, queue, group, start, timeout);
                    if (offset >= 0) {
                        log.info("Group '{}' has no offset in {}: starts at offset {} ({})", group, queue, offset, start);
                    }
                });
            }
            consumer.start();
            PushConsumerShutdown.endIdlePopThread(consumer);
            if (settings.shareConsumeThreads()) {
                sharedThreads.share(consumer);
            }
        } catch (Exception e) {
            PushConsumerShutdown.run(consumer);
            String refused = settings.credentials().refusal(e, "subscribe to '" + spec.destination() + "' as group '"
                    + group + "'");
            return CompletableFuture.failedFuture(new SubscriptionException(refused != null ? refused
                    : "Could not subscribe to '" + spec.destination() + "' as RocketMQ group '" + group + "' on name server "
                    + settings.nameServer() + ": " + e.getMessage() + "; check that the topic exists and the name server is "
                    + "reachable", e));
        }
        log.debug("Subscribed to '{}' as RocketMQ group '{}' ({})", spec.destination(), group,
                spec.broadcast() ? "broadcast" : "clustering");
        // A group without offsets starts at the first offset or where its start position put it, a broadcast
        // subscriber at the end (or its start position) found above: a record published from now on is delivered
        // once the queues are assigned.
        if (spec.broadcast()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> routed = new CompletableFuture<>();
        sharedThreads.routeWaits().incrementAndGet();
        routed.whenComplete((done, error) -> sharedThreads.routeWaits().decrementAndGet());
        awaitRetryTopicRoute(routed, System.nanoTime() + settings.adminTimeout().toNanos(), true);
        return routed;
    }

    /**
     * The broker creates the group's retry topic when the consumer first registers, after the
     * consumer looked for its route; without this, a record returned to the broker would wait for
     * the client's next route refresh (30 seconds) before it is delivered again.
     *
     * <p>Done as soon as the consumer has the retry topic's queues (its rebalance needs nothing
     * more): rocketmq-client's {@code updateTopicRouteInfoFromNameServer} answers true only when
     * the route <em>changed</em>, so for a group whose retry topic existed already (a second
     * member, a member subscribing again, a successor of a crashed one), whose route
     * {@code consumer.start()} found, it answers false every time; waiting for true alone held
     * such a subscription for the whole {@code rocketmq.admin-timeout} (10 s), then logged a
     * false warning. Looked up every {@value #ROUTE_POLL_MILLIS} ms on the adapter's timer, not on
     * the thread that starts the subscription: the start's stage (so {@code ready()}) completes
     * when it is found, and a burst of starts waits for the broker in parallel. While many look,
     * each looks {@value #ROUTE_POLL_SPACING_MILLIS} ms apart per subscription looking: a lookup holds the
     * client instance's name-server lock for a round trip, which every consumer's start needs
     * too, and 200 subscriptions looking every 20 ms kept it held (their starts waited on it). The
     * starting thread only reads what {@code consumer.start()} found, and leaves the lookups to the timer.
     */
    private void awaitRetryTopicRoute(CompletableFuture<Void> routed, long deadline, boolean starting) {
        String retryTopic = MixAll.getRetryTopic(group);
        try {
            MQClientInstance client = consumer.getDefaultMQPushConsumerImpl().getmQClientFactory();
            Map<String, ?> subscribed =
                    consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getTopicSubscribeInfoTable();
            if (closed.get()) {
                routed.complete(null);
            } else if (subscribed.containsKey(retryTopic)
                    || (!starting && client.updateTopicRouteInfoFromNameServer(retryTopic))) {
                client.rebalanceImmediately();
                routed.complete(null);
            } else if (System.nanoTime() - deadline > 0) {
                log.warn("No route for retry topic {} of group '{}' yet; records returned to the broker are delivered "
                        + "again once the client refreshes its routes", retryTopic, group);
                routed.complete(null);
            } else {
                sharedThreads.later(() -> awaitRetryTopicRoute(routed, deadline, false),
                        Math.max(ROUTE_POLL_MILLIS, sharedThreads.routeWaits().get() * ROUTE_POLL_SPACING_MILLIS));
            }
        } catch (RuntimeException e) {
            log.warn("Could not look up the route of retry topic {} of group '{}': {}; records returned to the broker "
                    + "are delivered again once the client refreshes its routes", retryTopic, group, e.toString());
            routed.complete(null);
        }
    }

    /**
     * Positions a broadcast subscriber at the current end of every queue before it starts, so
     * that every record published once {@link #start} completed reaches it. (RocketMQ's orderly
     * consumer would only look up the end at its first pull, missing what came in between.)
     */
    /** Something done to one queue of the destination, on its master broker. */
    private interface QueueStep {
        void apply(MQClientAPIImpl api, String master, MessageQueue queue, long timeout) throws Exception;
    }

    /** Applies the step to every queue of the destination that has a master (before the consumer starts). */
    private void positionQueues(QueueStep step) throws Exception {
        MQClientAPIImpl api = producers.api();
        long timeout = settings.adminTimeout().toMillis();
        TopicRouteData route = api.getTopicRouteInfoFromNameServer(spec.destination(), timeout, false);
        for (QueueData queues : route.getQueueDatas()) {
            String master = route.getBrokerDatas().stream().filter(b -> b.getBrokerName().equals(queues.getBrokerName()))
                    .map(BrokerData::selectBrokerAddr).findFirst().orElse(null);
            if (master == null) {
                continue;
            }
            for (int id = 0; id < queues.getReadQueueNums(); id++) {
                step.apply(api, master, new MessageQueue(spec.destination(), queues.getBrokerName(), id), timeout);
            }
        }
    }

    /** The RocketMQ client instance this consumer runs in (null before {@link #start}). */
    public MQClientInstance clientInstance() {
        return consumer.getDefaultMQPushConsumerImpl().getmQClientFactory();
    }

    private Map<MessageQueue, ProcessQueue> processQueues() {
        return consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable();
    }

    @Override
    public void stop() {
        handoff.stop();
        if (started.get() && !closed.get()) {
            consumer.suspend();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        onClose.accept(this);
        if (!started.get()) {
            return;
        }
        handoff.close(settings.sendTimeout().multipliedBy(2).toMillis());
        commitOffsets();
        PushConsumerShutdown.run(consumer);
    }

    /** Commits the offsets reached so far synchronously (RocketMQ's own shutdown sends them one-way). */
    private void commitOffsets() {
        if (spec.broadcast()) {
            return;
        }
        OffsetStore store = consumer.getOffsetStore();
        for (MessageQueue queue : processQueues().keySet()) {
            long offset = store.readOffset(queue, ReadOffsetType.READ_FROM_MEMORY);
            if (offset < 0) {
                continue;
            }
            try {
                store.updateConsumeOffsetToBroker(queue, offset, false);
            } catch (Exception e) {
                log.warn("Could not commit offset {} of {} for group '{}' on close; the rest since the last commit "
                        + "will be delivered again: {}", offset, queue, group, e.toString());
            }
        }
    }

    @Override
    public OptionalLong backlog() {
        if (!started.get() || closed.get()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(spec.broadcast() ? broadcastBacklog() : groupBacklog());
        } catch (Exception e) {
            log.debug("Backlog of '{}' for group '{}' unavailable: {}", spec.destination(), group, e.toString());
            return OptionalLong.empty();
        }
    }

    /** The group's diff as RocketMQ's console shows it: max offset minus committed offset, all queues. */
    private long groupBacklog() throws Exception {
        MQClientInstance client = consumer.getDefaultMQPushConsumerImpl().getmQClientFactory();
        TopicRouteData route = client.getTopicRouteTable().get(spec.destination());
        if (route == null) {
            throw new IllegalStateException("no route for " + spec.destination());
        }
        long total = 0;
        long timeout = settings.adminTimeout().toMillis();
        for (BrokerData broker : route.getBrokerDatas()) {
            String address = broker.selectBrokerAddr();
            if (address != null) {
                total += client.getMQClientAPIImpl().getConsumeStats(address, group, spec.destination(), timeout)
                        .computeTotalDiff();
            }
        }
        return total;
    }

    private long broadcastBacklog() throws Exception {
        long total = 0;
        for (MessageQueue queue : processQueues().keySet()) {
            long position = consumer.getOffsetStore().readOffset(queue, ReadOffsetType.READ_FROM_MEMORY);
            if (position >= 0) {
                total += Math.max(0, consumer.maxOffset(queue) - position);
            }
        }
        return total;
    }

    @Override
    public String toString() {
        return "RocketMqConsumer[" + spec.destination() + ", group " + group + (spec.broadcast() ? ", broadcast" : "")
                + "]";
    }
}
