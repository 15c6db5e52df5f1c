package io.switchboard.rabbit.internal.consume;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.Delivery;
import io.switchboard.SubscriptionException;
import io.switchboard.SwitchboardException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.rabbit.internal.mapping.AmqpHeaders;
import io.switchboard.rabbit.internal.provision.Adoption;
import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import io.switchboard.spi.TagFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a consumer group's queues (one per partition) or a broadcast subscriber's exclusive
 * queue, on one channel of the consuming connection. amqp-client calls {@code handleDelivery} for
 * one channel from one thread at a time, in queue order; the record goes straight to core's
 * listener, which never blocks.
 *
 * <p>At-least-once and exactly-once: manual acks, sent when core settles the record; prefetch
 * ({@code basic.qos}) per queue is {@code maxInFlight / queues}, so at most {@code maxInFlight}
 * records are unsettled. At-most-once: the broker acks on delivery (auto-ack).
 *
 * <p>Order: RabbitMQ delivers a queue in order. A record of a partition queue carries its
 * partition, so core handles a partition (hence a key) on one lane; a record of a group's only
 * queue (partitions off, the default) carries none, and core spreads records over lanes by key
 * (a plain publisher's routing key when the record has no key header, see {@link RabbitRecord}).
 * Either way per-key order holds for a single subscriber of a group at any concurrency. Several
 * members of one group compete for each queue, so per-key order across members holds only with
 * {@code rabbitmq.single-active-consumer=true} (then one member at a time reads each queue).
 */
public final class RabbitConsumer implements RawConsumer {

    private static final Logger log = LoggerFactory.getLogger(RabbitConsumer.class);

    private final RabbitAdapter adapter;
    private final ConsumerSpec spec;
    private final RabbitSettings settings;
    private final boolean autoAck;
    /** The subscription's tag filter: the bindings apply it; the client checks it too (see dropFiltered). */
    private final TagFilter filter;
    private final AtomicInteger unsettled = new AtomicInteger();
    private final AtomicBoolean failed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<String> queues = new ArrayList<>();
    private final List<String> consumerTags = new ArrayList<>();
    private volatile boolean stopped;
    private RecordListener listener;
    private Channel channel;

    public RabbitConsumer(RabbitAdapter adapter, ConsumerSpec spec, RabbitSettings settings) {
        this.adapter = adapter;
        this.spec = spec;
        this.settings = settings;
        this.autoAck = spec.delivery() == Delivery.AT_MOST_ONCE;
        this.filter = TagFilter.parse(spec.filter());
    }

    String destination() {
        return spec.destination();
    }

    /**
     * Agrees to core running the handler on the delivery thread (as a plain amqp-client consumer,
     * or Spring AMQP's direct container, does) when the subscription handles one record at a time:
     * amqp-client delivers a channel's records from one thread at a time in queue order, the
     * adapter gives each busy channel a thread of its own, and acks from inside the handler are
     * plain {@code basic.ack} frames. Higher concurrency keeps core's lanes.
     */
    @Override
    public boolean handleOnDeliveryThreads(int concurrency) {
        return concurrency == 1;
    }

    @Override
    public synchronized CompletionStage<Void> start(RecordListener recordListener) {
        this.listener = recordListener;
        try {
            channel = adapter.consumeConnection().createChannel();
            queues.addAll(declareQueues());
            if (!autoAck) {
                channel.basicQos(Math.max(1, spec.maxInFlight() / queues.size()));
            }
            int partitions = queues.size();
            for (int p = 0; p < partitions; p++) {
                int partition = spec.broadcast() || partitions == 1 ? -1 : p; // -1: core spreads by key
                consumerTags.add(channel.basicConsume(queues.get(p), autoAck, new QueueConsumer(channel, queues.get(p), partition)));
            }
            log.debug("Consuming {} for group '{}' ({})", queues, spec.group(), spec.delivery());
            return CompletableFuture.completedFuture(null);
        } catch (io.switchboard.ConfigurationException e) {
            RabbitAdapter.closeQuietly(channel);
            return CompletableFuture.failedFuture(e);
        } catch (IOException | RuntimeException e) {
            RabbitAdapter.closeQuietly(channel);
            SwitchboardException error = new SubscriptionException("Cannot consume '" + spec.destination() + "' for group '"
                    + spec.group() + "' on RabbitMQ at " + adapter.printableUri() + ": " + AmqpErrors.describe(e)
                    + AmqpErrors.hint(e), e);
            return CompletableFuture.failedFuture(error);
        }
    }

    private List<String> declareQueues() throws IOException {
        String destination = spec.destination();
        int partitions = adapter.partitions(destination, spec.properties(), settings);
        if (settings.queue != null || settings.exchange != null && !settings.exchange.equals(destination)) {
            return adapter.topology().declareAdopted(channel, spec, settings, partitions);
        }
        if (settings.declare != RabbitSettings.Declare.CREATE) {
            return adapter.topology().groupQueues(spec, settings, partitions);
        }
        if (adapter.isAdopted(destination)) { // provisioning left the destination's exchange to its users
            Adoption.ensureExchange(adapter, destination, settings.destinationExchangeType());
        }
        if (!spec.broadcast()) {
            return adapter.topology().declareGroup(channel, destination, spec.group(), partitions, settings, filter);
        }
        String queue = destination + "." + spec.group();
        channel.queueDeclare(queue, false, true, true, settings.broadcastQueueArguments());
        adapter.topology().bindBroadcast(channel, destination, queue, filter, settings);
        return List.of(queue);
    }

    /**
     * A record the filter does not select reached the queue while a group was being rebound from another filter
     * (or from a plain publisher whose routing key happened to match): acknowledged and counted, never handled.
     */
    private void dropFiltered(Channel ch, long deliveryTag) {
        if (!autoAck) {
            try {
                ch.basicAck(deliveryTag, false);
            } catch (IOException | RuntimeException e) {
                log.debug("Ack of a filtered-out record of '{}' not sent: {}", spec.destination(), e.toString());
            }
        }
        listener.onFiltered();
    }

    /**
     * Acknowledges a settled batch with one {@code basic.ack} whose {@code multiple} flag covers every delivery up to
     * its last tag: core calls this only when everything delivered before is settled, as Spring AMQP's batch listener
     * acknowledges a batch. A record of another channel (never the case while this consumer lives) is acked alone.
     */
    @Override
    public void ackInOrder(List<? extends io.switchboard.spi.InboundRecord> records) {
        Channel last = null;
        long lastTag = -1;
        int claimed = 0;
        for (io.switchboard.spi.InboundRecord record : records) {
            if (!(record instanceof RabbitRecord r) || r.channel() != channel) {
                record.ack();
                continue;
            }
            if (r.settleForCumulativeAck()) {
                claimed++;
                last = r.channel();
                lastTag = Math.max(lastTag, r.deliveryTag());
            }
        }
        if (claimed == 0) {
            return; // auto-acked (at-most-once), or settled already
        }
        try {
            last.basicAck(lastTag, true);
        } catch (IOException | ShutdownSignalException e) {
            log.debug("Ack of {} record(s) from '{}' not sent ({}); the broker delivers them again", claimed,
                    spec.destination(), e.toString());
        } finally {
            unsettled.addAndGet(-claimed);
        }
    }

    void settled() {
        unsettled.decrementAndGet();
    }

    private void fail(String reason) {
        if (failed.compareAndSet(false, true) && !stopped) {
            log.warn("Consumer of '{}' (group '{}') ended: {}", spec.destination(), spec.group(), reason);
            listener.onFailure(new SubscriptionException(reason));
        }
    }

    /** Cancels the consumers; records already delivered can still be settled. Idempotent. */
    @Override
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (channel == null || !channel.isOpen()) {
            return;
        }
        for (String tag : consumerTags) {
            try {
                channel.basicCancel(tag);
            } catch (IOException | RuntimeException e) {
                log.debug("Cancelling consumer {} of '{}': {}", tag, spec.destination(), e.toString());
            }
        }
    }

    /** Closes the channel: RabbitMQ requeues every record not yet acked. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stop();
        RabbitAdapter.closeQuietly(channel);
    }

    /** Ready messages in the queues (from the broker) plus this consumer's unsettled ones. */
    @Override
    public OptionalLong backlog() {
        if (queues.isEmpty() || closed.get()) {
            return OptionalLong.empty();
        }
        long ready = adapter.withChannel("read the depth of " + queues, ch -> {
            long total = 0;
            for (String queue : queues) {
                total += ch.queueDeclarePassive(queue).getMessageCount();
            }
            return total;
        });
        return OptionalLong.of(ready + unsettled.get());
    }

    @Override
    public String toString() {
        return "RabbitConsumer[" + queues + ", " + spec.delivery() + "]";
    }

    /** Receives one queue's deliveries on amqp-client's dispatch thread. */
    private final class QueueConsumer extends DefaultConsumer {
        private final String queue;
        private final int partition;
        /** Whether the broker confirmed this consumer once: a later confirmation is its recovery. Dispatch thread only. */
        private boolean consumed;

        QueueConsumer(Channel channel, String queue, int partition) {
            super(channel);
            this.queue = queue;
            this.partition = partition;
        }

        @Override
        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            if (!filter.matchesAll() && !filter.matches(AmqpHeaders.tag(properties))) {
                dropFiltered(getChannel(), envelope.getDeliveryTag());
                return;
            }
            if (!autoAck) {
                unsettled.incrementAndGet();
            }
            listener.onRecord(new RabbitRecord(RabbitConsumer.this, getChannel(), envelope.getDeliveryTag(),
                    envelope.isRedeliver(), partition, envelope.getRoutingKey(), properties, body, autoAck));
        }

        @Override
        public void handleConsumeOk(String consumerTag) {
            super.handleConsumeOk(consumerTag);
            if (consumed) { // amqp-client registered it again after recovering the connection
                report(EventKinds.CONSUMER_RECOVERED, "consumes again after the connection was recovered");
            }
            consumed = true;
        }

        private void report(String kind, String detail) {
            ClientEvents events = adapter.clientEvents();
            if (events != ClientEvents.NONE) {
                try {
                    events.instant(kind, queue, "group '" + spec.group() + "' of '" + spec.destination() + "': " + detail);
                } catch (RuntimeException e) {
                    log.debug("Reporting a {} event of queue '{}' failed", kind, queue, e);
                }
            }
        }

        @Override
        public void handleCancel(String consumerTag) {
            report(EventKinds.CONSUMER_CANCELLED, "the broker cancelled the consumer (queue deleted, or its node went away)");
            fail("RabbitMQ cancelled the consumer of queue '" + queue + "' (the queue was deleted, or the node that hosts "
                    + "it went away), so messages of '" + spec.destination() + "' no longer reach group '" + spec.group()
                    + "'. Close this subscription and subscribe again to declare the queue anew");
        }

        @Override
        public void handleShutdownSignal(String consumerTag, ShutdownSignalException signal) {
            if (stopped || adapter.isClosing() || signal.isInitiatedByApplication()) {
                return;
            }
            if (signal.isHardError()) {
                log.warn("Connection to RabbitMQ lost while consuming '{}' ({}); amqp-client recovers it and the broker "
                        + "delivers unacknowledged records again", queue, AmqpErrors.describe(signal));
                return;
            }
            fail("RabbitMQ closed the channel consuming queue '" + queue + "': " + AmqpErrors.describe(signal)
                    + AmqpErrors.hint(signal));
        }
    }
}
