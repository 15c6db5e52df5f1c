package io.switchboard.rocketmq.internal.publish;

import io.switchboard.BackPressureException;
import io.switchboard.Delivery;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.rocketmq.internal.mapping.MessageMapping;
import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes to one RocketMQ topic through the adapter's shared producer.
 *
 * <ul>
 *   <li>At-most-once: one-way send, or for a keyed message an asynchronous send in its key lane
 *       (below); either way the future completes at once and a failure is only logged.</li>
 *   <li>At-least-once: asynchronous send; the future completes on the broker's SEND_OK.</li>
 *   <li>Exactly-once: as at-least-once, or a transactional message when a
 *       {@link io.switchboard.rocketmq.TransactionHandler} is registered.</li>
 * </ul>
 *
 * <p>A keyed message goes to the queue chosen by the key's hash, so one key keeps one queue, and
 * {@link KeyLanes} keeps one round of sends per key lane in flight, so the broker stores a key's
 * messages in publish order; what waited in a lane meanwhile goes as the next round, one batch per
 * queue, so a busy key still pipelines. Sends in flight are bounded per adapter ({@code rocketmq.max-pending-sends}); when
 * the bound is reached, {@link #send} waits up to {@code rocketmq.buffer-timeout}, then fails with
 * {@link BackPressureException}. Core's callback gets each answer (no future per message; a batch's
 * answer frees its permits at once); nothing blocks RocketMQ's threads.
 */
public final class RocketMqPublisher implements RawPublisher {

    private static final Logger log = LoggerFactory.getLogger(RocketMqPublisher.class);

    /** Queue by key hash: stateless, one instance for all sends. */
    static final MessageQueueSelector BY_KEY_HASH = (List<MessageQueue> queues, Message message, Object key) ->
            queues.get(Math.floorMod(key.hashCode(), queues.size()));

    /** The most messages of one key lane sent as one round. */
    private static final int MAX_ROUND = 256;
    /** The most bytes (bodies plus an allowance for properties) in one batch; RocketMQ's limit is 4 MiB. */
    private static final int MAX_BATCH_BYTES = 1024 * 1024;
    private static final int PROPERTY_ALLOWANCE = 512;
    /** At most one {@link EventKinds#PUBLISH_RETRY} instant per publisher in this time; it counts the retries since. */
    private static final long RETRY_REPORT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Producers producers;
    private final RocketMqSettings settings;
    private final String destination;
    private final Delivery delivery;
    private final String tag;
    private final Semaphore window;
    private final long timerPrecisionMillis;
    private final TransactionalSender transactions;
    private final KeyLanes<Keyed> keyLanes = new KeyLanes<>(new RoundSender());
    private final AtomicInteger pending = new AtomicInteger();
    /** Where a keyed at-most-once send's answer goes: its caller had {@link SendResult#UNKNOWN} at once. */
    private final BiConsumer<SendResult, Throwable> logLoss;
    private volatile boolean closed;
    /** The back-pressure span while sends wait for room in the window, or null. */
    private final AtomicReference<ClientEvents.Span> waiting = new AtomicReference<>();
    /** Retries not reported yet, and when the next report may go. */
    private final AtomicLong unreportedRetries = new AtomicLong();
    private final AtomicLong nextRetryReport = new AtomicLong(System.nanoTime());
    /** The queue of the next {@link #sendAll} batch: round-robin from call to call. */
    private final AtomicInteger nextBatchQueue = new AtomicInteger(java.util.concurrent.ThreadLocalRandom.current().nextInt(1024));
    /** An answer nothing waits for. */
    private static final Runnable NOTHING = () -> { };
    /** {@link #retried}, made once: every send's callback holds it. */
    private final Consumer<Throwable> onRetry = this::retried;

    public RocketMqPublisher(Producers producers, RocketMqSettings settings, PublisherSpec spec, Semaphore window) {
        this.producers = producers;
        this.settings = settings;
        this.destination = spec.destination();
        this.delivery = spec.delivery();
        this.tag = spec.properties().get(RocketMqSettings.TAG);
        this.window = window;
        this.timerPrecisionMillis = settings.timerPrecision().toMillis();
        this.transactions = delivery == Delivery.EXACTLY_ONCE ? new TransactionalSender(producers, destination) : null;
        this.logLoss = (result, error) -> {
            if (error != null) {
                log.debug("At-most-once message to '{}' was lost: {}", destination, error.toString());
            }
        };
        producers.plain();
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        return RawPublisher.sendViaCallback(this, record);
    }

    @Override
    public void send(OutboundRecord record, BiConsumer<SendResult, Throwable> done) {
        if (closed) {
            done.accept(null, new SwitchboardClosedException("RocketMQ publisher for '" + destination
                    + "' on broker instance '" + settings.instanceName() + "' is closed; create a new publisher"));
            return;
        }
        Message message;
        long deliverAt = deliverAt(record.deliverAtEpochMillis());
        try {
            message = MessageMapping.toMessage(record, tag, deliverAt);
        } catch (RuntimeException e) {
            done.accept(null, e);
            return;
        }
        if (delivery == Delivery.AT_MOST_ONCE && record.key() == null) {
            sendOneway(message, done);
            return;
        }
        if (!acquireWindow()) {
            done.accept(null, new BackPressureException("Message to '" + destination + "' not sent: "
                    + "broker instance '" + settings.instanceName() + "' has " + settings.maxPendingSends()
                    + " RocketMQ sends in flight and none finished within " + settings.bufferTimeout() + "; raise "
                    + RocketMqSettings.MAX_PENDING_SENDS + " or " + RocketMqSettings.BUFFER_TIMEOUT + ", or publish slower"));
            return;
        }
        pending.incrementAndGet();
        // keyed at-most-once: sequenced in its key lane to keep the key's order (the broker may store two one-way
        // sends in either order), but the caller does not wait for the broker
        BiConsumer<SendResult, Throwable> sent = delivery == Delivery.AT_MOST_ONCE ? logLoss : done;
        if (delivery == Delivery.AT_MOST_ONCE) {
            done.accept(SendResult.UNKNOWN, null);
        }
        if (transactions != null && producers.handler() != null) {
            transactions.send(message, (result, error) -> {
                finished(1);
                sent.accept(result, error);
            });
        } else if (record.key() == null) {
            startSend(message, null, null, sent, null);
        } else {
            keyLanes.submit(record.key(), new Keyed(message, record.key(), deliverAt > 0, sent));
        }
    }

    /**
     * Sends the records without a key nor a delivery time as RocketMQ batches: consecutive runs of at most
     * {@value #MAX_BATCH_BYTES} bytes (and at most the window of sends in flight), each one request to one queue, which
     * the broker stores whole or not at all; the queue turns round-robin from call to call. Keyed records keep their
     * key lanes (so a key keeps its queue and order) and delayed ones travel alone, as with {@link #send}; at-most-once,
     * transactional and single records go as {@link #send} sends them.
     */
    @Override
    public void sendAll(List<OutboundRecord> records, List<? extends BiConsumer<SendResult, Throwable>> done) {
        List<MessageQueue> queues = records.size() < 2 || closed || delivery == Delivery.AT_MOST_ONCE
                || (transactions != null && producers.handler() != null) ? null : batchQueues();
        if (queues == null) {
            RawPublisher.super.sendAll(records, done);
            return;
        }
        MessageQueue queue = queues.get(Math.floorMod(nextBatchQueue.getAndIncrement(), queues.size()));
        int maxCount = Math.min(MAX_ROUND, settings.maxPendingSends());
        List<Keyed> chunk = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < records.size(); i++) {
            OutboundRecord record = records.get(i);
            if (record.key() != null || record.deliverAtEpochMillis() > 0) {
                send(record, done.get(i));
                continue;
            }
            Message message;
            try {
                message = MessageMapping.toMessage(record, tag, 0);
            } catch (RuntimeException e) {
                done.get(i).accept(null, e);
                continue;
            }
            int size = message.getBody().length + PROPERTY_ALLOWANCE;
            if (!chunk.isEmpty() && (bytes + size > MAX_BATCH_BYTES || chunk.size() == maxCount)) {
                sendBatch(queue, chunk);
                chunk = new ArrayList<>();
                bytes = 0;
            }
            chunk.add(new Keyed(message, null, false, done.get(i)));
            bytes += size;
        }
        if (!chunk.isEmpty()) {
            sendBatch(queue, chunk);
        }
    }

    /** The topic's queues for a batch: as last fetched, or fetched now for a publisher that has not sent yet; or null. */
    private List<MessageQueue> batchQueues() {
        List<MessageQueue> queues = queues();
        if (queues != null && !queues.isEmpty()) {
            return queues;
        }
        try { // a blocking route lookup on the caller's thread, as the client's own first send does
            List<MessageQueue> fetched = producers.plain().fetchPublishMessageQueues(destination);
            return fetched == null || fetched.isEmpty() ? null : fetched;
        } catch (Exception e) { // send one by one: their failures say what is wrong
            log.debug("No route to '{}' for a batch; sending its records one by one", destination, e);
            return null;
        }
    }

    /** One batch: its window permits taken together (or each record fails with back-pressure), then one request. */
    private void sendBatch(MessageQueue queue, List<Keyed> chunk) {
        int n = chunk.size();
        if (!acquireWindow(n)) {
            BackPressureException refused = new BackPressureException("A batch of " + n + " messages to '" + destination
                    + "' not sent: broker instance '" + settings.instanceName() + "' has " + settings.maxPendingSends()
                    + " RocketMQ sends in flight and room for " + n + " did not come within " + settings.bufferTimeout()
                    + "; raise " + RocketMqSettings.MAX_PENDING_SENDS + " or " + RocketMqSettings.BUFFER_TIMEOUT
                    + ", or publish slower");
            chunk.forEach(k -> k.sent().accept(null, refused));
            return;
        }
        pending.addAndGet(n);
        sendChunk(queue, chunk, NOTHING);
    }

    /**
     * Starts an asynchronous send to the key's queue ({@code key} not null), to {@code queue}, or to
     * any queue; false when it failed at once ({@code sent} then has the error, {@code answered} is not run).
     */
    private boolean startSend(Message message, String key, MessageQueue queue, BiConsumer<SendResult, Throwable> sent,
            Runnable answered) {
        SingleSend callback = new SingleSend(message, key, queue, sent, answered);
        try {
            callback.start();
            return true;
        } catch (Exception e) {
            finished(1);
            sent.accept(null, failure(e));
        }
        return false;
    }

    /** One message's send and its answer. */
    private final class SingleSend extends RetriedSend {
        private final Message message;
        private final String key;
        private final MessageQueue queue;
        private final BiConsumer<SendResult, Throwable> sent;
        private final Runnable answered;

        SingleSend(Message message, String key, MessageQueue queue, BiConsumer<SendResult, Throwable> sent,
                Runnable answered) {
            super(settings.sendTimeout(), onRetry);
            this.message = message;
            this.key = key;
            this.queue = queue;
            this.sent = sent;
            this.answered = answered;
        }

        @Override
        protected void send(long timeoutMillis) throws Exception {
            if (queue != null) {
                producers.plain().send(message, queue, this, timeoutMillis);
            } else if (key == null) {
                producers.plain().send(message, this, timeoutMillis);
            } else {
                producers.plain().send(message, BY_KEY_HASH, key, this, timeoutMillis);
            }
        }

        @Override
        public void onSuccess(org.apache.rocketmq.client.producer.SendResult result) {
            if (answered != null) {
                answered.run();
            }
            finished(1);
            complete(sent, result, 0, destination);
        }

        @Override
        protected void failed(Throwable error) {
            if (answered != null) {
                answered.run();
            }
            finished(1);
            sent.accept(null, SendFailures.of(error, destination, settings.nameServer(), settings.credentials()));
        }
    }

    /**
     * A keyed message waiting in its lane; {@code delayed} when it has a delivery time (RocketMQ's
     * only delay the adapter sets: headers cannot carry RocketMQ's own properties).
     */
    private record Keyed(Message message, String key, boolean delayed, BiConsumer<SendResult, Throwable> sent) {}

    /**
     * Sends a lane's round: its messages grouped by the queue their key selects (the same choice
     * as {@link #BY_KEY_HASH} on the same queue list), each queue's group as consecutive batches
     * of at most {@value #MAX_BATCH_BYTES} bytes, one after the other; the groups in parallel.
     * A delayed message travels alone (RocketMQ does not batch them), still in its place.
     */
    private final class RoundSender implements KeyLanes.Sender<Keyed> {

        @Override
        public int maxRound() {
            return queues() == null ? 1 : MAX_ROUND;
        }

        @Override
        public boolean send(List<Keyed> round, Runnable done) {
            List<MessageQueue> queues = round.size() == 1 ? null : queues();
            if (queues == null) {
                Keyed only = round.get(0);
                if (round.size() == 1) {
                    return startSend(only.message(), only.key(), null, only.sent(), done);
                }
                queues = List.of(); // the route vanished meanwhile: one queue share, sent one message at a time
            }
            Map<Integer, List<Chunk>> shares = new LinkedHashMap<>();
            for (Keyed k : round) {
                int index = queues.isEmpty() ? -1 : Math.floorMod(k.key().hashCode(), queues.size());
                List<Chunk> chunks = shares.computeIfAbsent(index, i -> new ArrayList<>());
                Chunk last = chunks.isEmpty() ? null : chunks.get(chunks.size() - 1);
                boolean delayed = k.delayed();
                int bytes = k.message().getBody().length + PROPERTY_ALLOWANCE;
                if (last == null || index < 0 || !last.accepts(delayed, bytes)) {
                    last = new Chunk();
                    chunks.add(last);
                }
                last.add(k, delayed, bytes);
            }
            AtomicInteger open = new AtomicInteger(1);
            Runnable shareDone = () -> {
                if (open.decrementAndGet() == 0) {
                    done.run();
                }
            };
            for (Map.Entry<Integer, List<Chunk>> share : shares.entrySet()) {
                MessageQueue queue = share.getKey() < 0 ? null : queues.get(share.getKey());
                List<List<Keyed>> chunks = new ArrayList<>(share.getValue().size());
                share.getValue().forEach(c -> chunks.add(c.items));
                open.incrementAndGet();
                if (!new QueueShare(queue, chunks, shareDone).start()) {
                    open.decrementAndGet();
                }
            }
            return open.decrementAndGet() != 0;
        }
    }

    /**
     * One batch being filled: its byte count kept as it grows (a message is sized once), closed by a
     * delayed message, which travels alone.
     */
    private static final class Chunk {
        final List<Keyed> items = new ArrayList<>();
        private long bytes;
        private boolean closed;

        boolean accepts(boolean delayed, int size) {
            return !closed && !delayed && bytes + size <= MAX_BATCH_BYTES;
        }

        void add(Keyed k, boolean delayed, int size) {
            items.add(k);
            bytes += size;
            closed |= delayed;
        }
    }

    /** One queue's share of a round: its chunks one after another, each in flight alone. */
    private final class QueueShare {
        private final MessageQueue queue;
        private final List<List<Keyed>> chunks;
        private final Runnable done;
        private int next;

        QueueShare(MessageQueue queue, List<List<Keyed>> chunks, Runnable done) {
            this.queue = queue;
            this.chunks = chunks;
            this.done = done;
        }

        /** Starts chunks until one is in flight; false when none could start ({@code done} is then not called). */
        boolean start() {
            while (next < chunks.size()) {
                if (sendChunk(queue, chunks.get(next++), this::answered)) {
                    return true;
                }
            }
            return false;
        }

        private void answered() {
            if (!start()) {
                done.run();
            }
        }
    }

    /**
     * Sends one message (selector or queue) or one batch to {@code queue}; false when it failed at once. A batch's
     * answer frees its window permits at once and then completes its messages, in their order.
     */
    private boolean sendChunk(MessageQueue queue, List<Keyed> chunk, Runnable answered) {
        if (chunk.size() == 1 || queue == null) {
            Keyed k = chunk.get(0);
            return startSend(k.message(), queue == null ? k.key() : null, queue, k.sent(), answered);
        }
        List<Message> messages = new ArrayList<>(chunk.size());
        for (Keyed k : chunk) {
            messages.add(k.message());
        }
        RetriedSend callback = new RetriedSend(settings.sendTimeout(), onRetry) {
            @Override
            protected void send(long timeoutMillis) throws Exception {
                producers.plain().send(messages, queue, this, timeoutMillis);
            }

            @Override
            public void onSuccess(org.apache.rocketmq.client.producer.SendResult result) {
                answered.run();
                finished(chunk.size());
                for (int i = 0; i < chunk.size(); i++) {
                    complete(chunk.get(i).sent(), result, i, destination);
                }
            }

            @Override
            protected void failed(Throwable error) {
                answered.run();
                finished(chunk.size());
                for (Keyed k : chunk) {
                    k.sent().accept(null, SendFailures.of(error, destination, settings.nameServer(), settings.credentials()));
                }
            }
        };
        try {
            callback.start();
            return true;
        } catch (Exception e) {
            finished(chunk.size());
            chunk.forEach(k -> k.sent().accept(null, failure(e)));
        }
        return false;
    }

    /** The {@code index}-th message's result of a send that stored it (a batch's messages have consecutive offsets). */
    static void complete(BiConsumer<SendResult, Throwable> sent, org.apache.rocketmq.client.producer.SendResult result,
            int index, String destination) {
        if (result.getSendStatus() == SendStatus.SEND_OK) {
            MessageQueue queue = result.getMessageQueue();
            long first = result.getQueueOffset();
            sent.accept(new SendResult(queue == null ? -1 : queue.getQueueId(), first < 0 ? -1 : first + index), null);
        } else {
            sent.accept(null, SendFailures.notDurable(result.getSendStatus(), destination));
        }
    }

    /** A send that failed before it left: interrupted (the flag kept), or refused by the client. */
    private RuntimeException failure(Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new PublishException("Interrupted while sending to '" + destination + "'", e);
        }
        return SendFailures.of(e, destination, settings.nameServer(), settings.credentials());
    }

    /** The topic's queues as the producer last fetched them, or null before its first send. */
    private List<MessageQueue> queues() {
        TopicPublishInfo info = producers.plain().getDefaultMQProducerImpl().getTopicPublishInfoTable().get(destination);
        return info == null || !info.ok() ? null : info.getMessageQueueList();
    }

    private void sendOneway(Message message, BiConsumer<SendResult, Throwable> done) {
        try {
            producers.plain().sendOneway(message);
            done.accept(SendResult.UNKNOWN, null);
        } catch (Exception e) { // done never throws: this is the client's
            done.accept(null, failure(e));
        }
    }

    /** Rounds up to the broker timer's precision, which would otherwise deliver up to one tick early. */
    private long deliverAt(long requested) {
        if (requested <= 0) {
            return 0;
        }
        return Math.floorDiv(requested + timerPrecisionMillis - 1, timerPrecisionMillis) * timerPrecisionMillis;
    }

    private boolean acquireWindow() {
        return acquireWindow(1);
    }

    private boolean acquireWindow(int permits) {
        if (window.tryAcquire(permits)) {
            return true;
        }
        waitBegins();
        try {
            return window.tryAcquire(permits, settings.bufferTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A send found the window full: opens the back-pressure span unless one is open. It stays open while sends keep
     * waiting, and {@link #finished} ends it once an answer frees room that nobody waits for.
     */
    private void waitBegins() {
        ClientEvents events = settings.events();
        if (events == ClientEvents.NONE || waiting.get() != null) {
            return;
        }
        try {
            ClientEvents.Span span = events.begin(EventKinds.BACK_PRESSURE, destination, settings.maxPendingSends()
                    + " sends in flight (" + RocketMqSettings.MAX_PENDING_SENDS + "): sends wait up to "
                    + settings.bufferTimeout() + " for room");
            if (!waiting.compareAndSet(null, span)) {
                span.end();
            }
        } catch (RuntimeException e) {
            log.debug("Reporting back-pressure on '{}' failed", destination, e);
        }
    }

    /**
     * A send is retried after {@code cause}: counted, and reported as a {@link EventKinds#PUBLISH_RETRY} instant unless
     * one went less than a second ago (the next one counts the retries since, so a storm of failures takes one entry a
     * second of the bounded timeline). Failures only; nothing per message.
     */
    private void retried(Throwable cause) {
        ClientEvents events = settings.events();
        if (events == ClientEvents.NONE) {
            return;
        }
        unreportedRetries.incrementAndGet();
        long now = System.nanoTime();
        long due = nextRetryReport.get();
        if (now - due < 0 || !nextRetryReport.compareAndSet(due, now + RETRY_REPORT_NANOS)) {
            return;
        }
        long count = unreportedRetries.getAndSet(0);
        String message = cause.getMessage();
        try {
            events.instant(EventKinds.PUBLISH_RETRY, destination, count + (count == 1 ? " retry" : " retries")
                    + " of sends (at most " + RetriedSend.MAX_RETRIES + " a send, within its send time-out), the last after "
                    + cause.getClass().getSimpleName() + (message == null ? "" : ": " + message));
        } catch (RuntimeException e) {
            log.debug("Reporting a retried send to '{}' failed", destination, e);
        }
    }

    /** Frees the window permits of {@code sends} answered sends (a batch's at once). */
    private void finished(int sends) {
        window.release(sends);
        if (waiting.get() != null && !window.hasQueuedThreads()) { // one read of a field that is null unless sends wait
            ClientEvents.Span span = waiting.getAndSet(null);
            if (span != null) {
                span.end();
            }
        }
        if (pending.addAndGet(-sends) == 0 && closed) {
            synchronized (pending) {
                pending.notifyAll();
            }
        }
    }

    /** Waits for sends in flight (at most the send time-out and retries), then stops the transactional thread. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + settings.sendTimeout().toNanos() * 3 + TimeUnit.SECONDS.toNanos(1);
        synchronized (pending) {
            while (pending.get() > 0) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    break;
                }
                try {
                    pending.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (transactions != null) {
            transactions.close();
        }
        ClientEvents.Span span = waiting.getAndSet(null);
        if (span != null) {
            span.end();
        }
        if (pending.get() > 0) {
            log.warn("RocketMQ publisher for '{}' closed with {} send(s) still unanswered; their futures complete when "
                    + "RocketMQ answers or times out", destination, pending.get());
        }
    }
}
