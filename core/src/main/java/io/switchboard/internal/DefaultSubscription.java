package io.switchboard.internal;

import io.micrometer.observation.ObservationRegistry;
import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.Delivery;
import io.switchboard.DeliveryContext;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.TypedCodec;
import io.switchboard.SubscriptionException;
import io.switchboard.internal.comparison.ClientCost;
import io.switchboard.internal.envelope.Envelopes;
import io.switchboard.internal.idempotency.ClaimWait;
import io.switchboard.internal.metrics.Arrivals;
import io.switchboard.internal.metrics.ConsumeRecorder;
import io.switchboard.internal.metrics.ConsumeRecorder.Outcome;
import io.switchboard.internal.metrics.Tracing;
import io.switchboard.internal.metrics.WallClock;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.IdempotencyStore;
import io.switchboard.spi.IdempotencyStore.Claim;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The subscription core hands out: takes records from an adapter's {@link RawConsumer}, spreads them over ordered lanes,
 * decodes, deduplicates, runs the handler with retries, dead-letters what keeps failing, acks or nacks each once. */
public final class DefaultSubscription<T> extends SubscriptionBase implements RecordListener {

    private static final Logger log = LoggerFactory.getLogger(DefaultSubscription.class);
    private static final int MAX_ERROR_MESSAGE = 1000;
    private static final String HANDLER_FAILED = ConsumeRecorder.HANDLER_FAILED;
    private static final String UNDECODABLE = ConsumeRecorder.UNDECODABLE;
    private static final String NON_RETRYABLE = ConsumeRecorder.NON_RETRYABLE;
    private final Instance instance;
    private final BrokerAdapter adapter;
    private final SubscriptionSettings settings;
    private final ConsumerSpec spec;
    private final Codec<T> codec;
    /** The codec when it reads the type id from a header (one check at construction, none a message). */
    private final TypedCodec<T> typed;
    private final MessageHandler<T> handler;
    /** The handler when it takes batches, else null. */
    private final BatchingHandler<T> batching;
    private final RetryPolicy retry;
    /** The shortest wait before a payload whose codec failed transiently goes back to the broker. */
    private static final Duration TRANSIENT_DECODE_WAIT = Duration.ofSeconds(1);
    private final IdempotencyStore store;
    private final String scope;
    /** The scope handlers see in their context: {@link #scope} when exactly-once, else null. */
    private final String contextScope;
    private final long busyWaitNanos;
    private final BooleanSupplier isStopping = () -> this.stopping;
    private final Lane[] lanes;
    /** True when the handler runs on the adapter's delivery threads (no lanes); decided in {@link #start()}. */
    private boolean inline;
    /**
     * True when a batch handler runs on the adapter's delivery threads: each thread collects what one hand-off gives it
     * and handles it in {@link #onHandoffEnd()}; decided in {@link #start()}.
     */
    private boolean inlineBatches;
    /** The records a delivery thread was handed since its last hand-off end (inline batches only). */
    private final ThreadLocal<List<InboundRecord>> handedOver = ThreadLocal.withInitial(ArrayList::new);
    /** True when a settled batch is acknowledged in one call ({@link RawConsumer#ackInOrder}): one lane, in order. */
    private boolean ackBatchesInOrder;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final Object drained = new Object();
    private volatile boolean stopping;
    private final Arrivals arrivals = new Arrivals();
    private final ObservationRegistry observations;
    private final ClientCost.Account cost;
    private RawConsumer consumer;
    private RawPublisher deadLetters;
    private volatile ConsumeRecorder meters;
    private BrokerRetry brokerRetry; // null unless the retry policy sends long waits through the broker

    /** Prepares the subscription; {@link #start()} begins consuming. */
    public DefaultSubscription(Instance instance, SubscriptionSettings settings, Codec<T> codec,
            MessageHandler<T> handler, Consumer<AutoCloseable> onClose) {
        super(settings.spec().destination(), settings.spec().group(), onClose);
        this.instance = instance;
        this.adapter = instance.adapter();
        this.settings = settings;
        this.spec = settings.spec();
        this.codec = codec;
        this.typed = codec instanceof TypedCodec<T> t ? t : null;
        this.handler = handler;
        this.batching = handler instanceof BatchingHandler<T> b ? b : null;
        this.retry = settings.retry();
        this.store = settings.idempotencyStore();
        this.scope = spec.destination() + "/" + spec.group();
        this.contextScope = spec.delivery() == Delivery.EXACTLY_ONCE ? scope : null;
        this.busyWaitNanos = settings.busyWait().toNanos();
        this.observations = settings.telemetry().observationsOrNull();
        this.cost = settings.telemetry().cost();
        this.lanes = new Lane[settings.concurrency()];
        for (int i = 0; i < lanes.length; i++) {
            String name = "switchboard-" + scope.replace('/', '-') + "-" + i;
            lanes[i] = batching == null ? new Lane(name, this::process, this::returnToBroker, cost)
                    : new Lane(name, this::processBatch, batching.size(), batching.waitNanos(), this::returnToBroker, cost);
        }
    }

    /** Creates the raw consumer and the dead-letter publisher and starts consuming. */
    public void start() {
        try {
            deadLetters = instance.deadLetterPublisher(settings.deadLetter(), spec.properties());
            consumer = instance.created("a consumer", spec.destination(), () -> adapter.createConsumer(spec));
            meters = settings.telemetry().subscriptionMeters(spec.destination(), spec.group(), inFlight, consumer);
            if (retry.brokerSideFrom() != null && spec.delivery() != Delivery.AT_MOST_ONCE) {
                brokerRetry = BrokerRetry.open(instance, spec);
            }
            boolean mayInline = brokerRetry == null && settings.dispatch() != Dispatch.LANES;
            inline = batching == null && mayInline && consumer.handleOnDeliveryThreads(lanes.length);
            inlineBatches = batching != null && mayInline && consumer.endsHandoffs()
                    && consumer.handleOnDeliveryThreads(lanes.length);
            // one lane handles every record in delivery order and settles each batch before it takes the next
            ackBatchesInOrder = batching != null && !inlineBatches && lanes.length == 1;
            if (!inline && !inlineBatches) {
                for (Lane lane : lanes) {
                    lane.start();
                }
            }
            CompletionStage<Void> retried = brokerRetry == null ? CompletableFuture.completedFuture(null) : brokerRetry.start(this);
            consumer.start(this).thenCombine(retried, (a, b) -> b).whenComplete((ignored, error) -> {
                if (error == null) {
                    ready.complete(null);
                } else {
                    ready.completeExceptionally(error);
                }
            });
        } catch (RuntimeException e) {
            ready.completeExceptionally(e);
            close();
            throw e;
        }
    }

    // ---- RecordListener: called by the adapter, never blocks ----

    @Override
    public void onRecord(InboundRecord record) {
        if (stopping) {
            record.nack();
            return;
        }
        inFlight.incrementAndGet();
        arrivals.arrived();
        if (inline) {
            processInline(record);
        } else if (inlineBatches) {
            handedOver.get().add(record);
        } else {
            lanes[laneOf(record)].offer(record);
        }
    }

    /** The adapter's delivery thread runs the handler (it agreed to): no hand-off, no wake-up. */
    private void processInline(InboundRecord record) {
        try {
            process(record);
        } catch (RuntimeException | Error e) {
            log.error("Unexpected failure while processing a record of '{}'; it is returned to the broker", spec.destination(), e);
            returnToBroker(record);
        }
    }

    @Override
    public void onHandoffEnd() {
        if (inlineBatches) {
            handleHandedOver();
        } else if (batching != null) {
            for (Lane lane : lanes) {
                lane.endBatch();
            }
        }
    }

    /** Handles what this delivery thread was handed since its last hand-off end, in batches of at most the batch size. */
    private void handleHandedOver() {
        List<InboundRecord> handed = handedOver.get();
        if (handed.isEmpty()) {
            return;
        }
        List<InboundRecord> records = new ArrayList<>(handed);
        handed.clear();
        int size = batching.size();
        for (int from = 0; from < records.size(); from += size) {
            List<InboundRecord> batch = records.subList(from, Math.min(records.size(), from + size));
            if (stopping) {
                batch.forEach(this::returnToBroker);
                continue;
            }
            try {
                processBatch(new ArrayList<>(batch));
            } catch (RuntimeException | Error e) { // the batch processor settled what it was given
                log.error("Unexpected failure while processing a batch of {} record(s) of '{}'", batch.size(),
                        spec.destination(), e);
            }
        }
    }

    @Override
    public void onFiltered() {
        ConsumeRecorder m = meters;
        if (m != null) m.filtered();
    }

    @Override
    public void onFailure(Throwable error) {
        log.error("Subscription to '{}' (group '{}') on broker '{}' was ended by the broker", spec.destination(),
                spec.group(), settings.instance(), error);
        terminated.completeExceptionally(new SubscriptionException("Subscription to '" + spec.destination() + "' (group '"
                + spec.group() + "') on broker '" + settings.instance() + "' was ended by the broker: " + error.getMessage()
                + ". Check that the destination still exists, then subscribe again", error));
    }

    private int laneOf(InboundRecord record) {
        int n = lanes.length;
        if (n == 1) {
            return 0;
        }
        if (record.partition() >= 0) {
            return record.partition() % n;
        }
        if (record.key() != null) {
            return (record.key().hashCode() & 0x7fffffff) % n;
        }
        return (roundRobin.getAndIncrement() & 0x7fffffff) % n;
    }

    // ---- processing, on a lane thread ----

    private void process(InboundRecord record) {
        ConsumeRecorder m = meters;
        if (m != null && record.deliveryCount() > 1) {
            m.redelivered();
        }
        Object decoded = decode(record);
        if (decoded == UNDECODED) {
            return;
        }
        @SuppressWarnings("unchecked")
        T payload = (T) decoded;
        boolean timed = m != null && m.timed(); // the first attempt's start and e2e's end: one read, none when counting
        // the envelope's time for e2e; a count needs it only where the broker gives none (the message reads it if asked)
        Instant sent = timed || m != null && record.brokerTimestamp() < 0 ? Envelopes.envelopeTime(record) : null;
        // the id, key, headers and time are worked out only when read (by the handler, a log line, exactly-once)
        Message<T> message = Envelopes.toMessage(payload, record, sent);
        long start = timed ? System.nanoTime() : 0L;
        if (m != null) {
            m.endToEnd(sent, record.brokerTimestamp(), timed ? WallClock.micros(start) : 0L);
        }
        if (spec.delivery() == Delivery.AT_MOST_ONCE) {
            Outcome outcome = Outcome.ACK;
            try {
                invoke(message, context(record, 1, 1), record);
            } catch (Exception e) {
                outcome = Outcome.DROPPED;
                log.warn("Handler failed on message {} from '{}' (at-most-once: not retried): {}", message.id(),
                        spec.destination(), e.toString());
            }
            ConsumeRecorder.handled(m, outcome, start);
            settle(record, true);
            return;
        }
        boolean dedup = spec.delivery() == Delivery.EXACTLY_ONCE;
        String id = dedup ? message.id() : null;
        if (dedup) {
            Claim claim = ClaimWait.claim(store, scope, id, busyWaitNanos, isStopping);
            if (claim == Claim.DONE) {
                log.debug("Message {} on '{}' already handled by group '{}': acknowledged as a duplicate", id, spec.destination(),
                        spec.group());
                ConsumeRecorder.handled(m, Outcome.DUPLICATE, System.nanoTime());
                settle(record, true);
                return;
            }
            if (claim == Claim.BUSY) { // never acked: its holder may still fail or die
                settle(record, false);
                return;
            }
            start = System.nanoTime(); // the handler's duration leaves the claim out
        }
        int attempt = BrokerRetry.failedBefore(record) + Math.max(1, record.deliveryCount());
        while (true) {
            try {
                invoke(message, context(record, attempt, retry.maxAttempts()), record);
                ConsumeRecorder.handled(m, Outcome.ACK, start);
                if (dedup) {
                    store.complete(scope, id);
                }
                settle(record, true);
                return;
            } catch (ClaimWait.StillBusyException e) { // the routing layer's claim stayed busy: not a failure
                if (dedup) {
                    store.release(scope, id);
                }
                settle(record, false);
                return;
            } catch (Exception e) {
                if (!retry.retries(e)) { // the policy's exception types and tests; a failure no attempt can mend
                    ConsumeRecorder.handled(m, Outcome.DEAD_LETTER, start);
                    log.warn("Message {} on '{}' failed at attempt {} in group '{}' with a non-retryable {}; sending it to '{}'",
                            message.id(), spec.destination(), attempt, spec.group(), e.getClass().getName(),
                            settings.deadLetter(), e);
                    deadLetter(record, message.id(), e, attempt, NON_RETRYABLE, dedup);
                    return;
                }
                if (attempt >= retry.maxAttempts()) {
                    ConsumeRecorder.handled(m, Outcome.DEAD_LETTER, start);
                    log.warn("Message {} on '{}' failed {} attempt(s) in group '{}'; sending it to '{}'", message.id(),
                            spec.destination(), attempt, spec.group(), settings.deadLetter(), e);
                    deadLetter(record, message.id(), e, attempt, HANDLER_FAILED, dedup);
                    return;
                }
                ConsumeRecorder.handled(m, Outcome.RETRY, start);
                log.debug("Attempt {} of message {} failed; retrying", attempt, message.id(), e);
            }
            Duration wait = retry.backoffAfter(attempt);
            if (brokerRetry != null && retry.brokerSide(wait)) {
                if (dedup) {
                    store.release(scope, id);
                }
                brokerRetry.retry(record, message.id(), attempt, wait, ok -> settle(record, ok));
                return;
            }
            if (!Lane.pause(wait, isStopping)) {
                if (dedup) {
                    store.release(scope, id);
                }
                settle(record, false);
                return;
            }
            attempt++;
            start = System.nanoTime();
        }
    }

    /** What {@link #decode} returns for a record it settled or dead-lettered itself. */
    private static final Object UNDECODED = new Object();

    /**
     * The record's payload, or {@link #UNDECODED} when it could not be decoded: then it is dead-lettered, or, where the
     * codec's failure is transient, returned to the broker after a wait.
     */
    private Object decode(InboundRecord record) {
        try {
            return typed == null ? codec.decode(record.payload())
                    : typed.decode(record.payload(), record.headers().get(typed.header()));
        } catch (RuntimeException e) {
            String id = Envelopes.id(record);
            if (e instanceof CodecException c && c.isTransient()) { // what the codec waits on may answer later
                int attempt = Math.max(1, record.deliveryCount());
                Duration wait = retry.backoffAfter(attempt);
                wait = wait.compareTo(TRANSIENT_DECODE_WAIT) < 0 ? TRANSIENT_DECODE_WAIT : wait; // never a tight loop
                log.warn("Message {} on '{}' cannot be decoded yet (attempt {}); returning it to the broker after {}: {}", id,
                        spec.destination(), attempt, wait, e.getMessage());
                Lane.pause(wait, isStopping);
                settle(record, false);
                return UNDECODED;
            }
            log.warn("Message {} on '{}' cannot be decoded; sending it to '{}': {}", id, spec.destination(),
                    settings.deadLetter(), e.getMessage());
            deadLetter(record, id, e, Math.max(1, record.deliveryCount()), UNDECODABLE, false);
            return UNDECODED;
        }
    }

    // ---- batches, on a lane thread ----

    /**
     * Handles a lane's batch: decodes each record (dead-lettering what cannot be), calls the batch handler, acknowledges
     * what succeeded and retries what failed (alone, with the batch-mates that failed too) until its attempts are spent
     * or its failure is not retryable, then dead-letters it. Settles every record it is given, also when it throws.
     */
    private void processBatch(List<InboundRecord> records) {
        List<InboundRecord> open = new ArrayList<>(records.size());
        try {
            ConsumeRecorder m = meters;
            List<Message<T>> messages = new ArrayList<>(records.size());
            for (InboundRecord record : records) {
                if (m != null && record.deliveryCount() > 1) {
                    m.redelivered();
                }
                Object decoded = decode(record);
                if (decoded == UNDECODED) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                T payload = (T) decoded;
                Instant sent = m != null ? Envelopes.envelopeTime(record) : null;
                messages.add(Envelopes.toMessage(payload, record, sent));
                open.add(record);
                if (m != null) {
                    m.endToEnd(sent, record.brokerTimestamp(), m.timed() ? WallClock.micros(System.nanoTime()) : 0L);
                }
            }
            if (!open.isEmpty()) {
                handleBatch(open, messages, m);
            }
        } catch (RuntimeException | Error e) {
            open.forEach(this::returnToBroker); // those still open: each settled record left the list
            throw e;
        }
    }

    private void handleBatch(List<InboundRecord> open, List<Message<T>> messages, ConsumeRecorder m) {
        boolean atMostOnce = spec.delivery() == Delivery.AT_MOST_ONCE;
        int[] attempts = new int[open.size()];
        for (int i = 0; i < attempts.length; i++) {
            attempts[i] = atMostOnce ? 1 : BrokerRetry.failedBefore(open.get(i)) + Math.max(1, open.get(i).deliveryCount());
        }
        List<InboundRecord> records = new ArrayList<>(open);
        while (true) {
            long start = System.nanoTime();
            List<DeliveryContext> contexts = new ArrayList<>(records.size());
            for (int i = 0; i < records.size(); i++) {
                contexts.add(context(records.get(i), attempts[i], atMostOnce ? 1 : retry.maxAttempts()));
            }
            DefaultBatch<T> batch = new DefaultBatch<>(messages, contexts);
            Exception whole = invokeBatch(batch);
            List<InboundRecord> retrying = new ArrayList<>();
            List<Message<T>> retryingMessages = new ArrayList<>();
            int[] retryingAttempts = new int[records.size()];
            open.clear(); // from here each record is settled below, or retried (and open again)
            if (whole == null && !batch.failedAny() && ackBatchesInOrder) {
                for (int k = 0; k < records.size(); k++) {
                    ConsumeRecorder.handled(m, Outcome.ACK, start);
                }
                settleAll(records);
                return;
            }
            int i = 0;
            try {
                for (; i < records.size(); i++) {
                    InboundRecord record = records.get(i);
                    Throwable failed = whole != null ? whole : batch.failure(i);
                    if (failed == null) {
                        ConsumeRecorder.handled(m, Outcome.ACK, start);
                        settle(record, true);
                        continue;
                    }
                    Exception e = failed instanceof Exception x ? x : new IllegalStateException(failed.toString(), failed);
                    String id = messages.get(i).id();
                    if (atMostOnce) {
                        ConsumeRecorder.handled(m, Outcome.DROPPED, start);
                        log.warn("Batch handler failed on message {} from '{}' (at-most-once: not retried): {}", id,
                                spec.destination(), e.toString());
                        settle(record, true);
                    } else if (!retry.retries(e)) {
                        ConsumeRecorder.handled(m, Outcome.DEAD_LETTER, start);
                        log.warn("Message {} on '{}' failed in a batch at attempt {} in group '{}' with a non-retryable {}; "
                                + "sending it to '{}'", id, spec.destination(), attempts[i], spec.group(), e.getClass().getName(),
                                settings.deadLetter(), e);
                        deadLetter(record, id, e, attempts[i], NON_RETRYABLE, false);
                    } else if (attempts[i] >= retry.maxAttempts()) {
                        ConsumeRecorder.handled(m, Outcome.DEAD_LETTER, start);
                        log.warn("Message {} on '{}' failed {} attempt(s) in a batch in group '{}'; sending it to '{}'", id,
                                spec.destination(), attempts[i], spec.group(), settings.deadLetter(), e);
                        deadLetter(record, id, e, attempts[i], HANDLER_FAILED, false);
                    } else {
                        ConsumeRecorder.handled(m, Outcome.RETRY, start);
                        retryingAttempts[retrying.size()] = attempts[i] + 1;
                        retrying.add(record);
                        retryingMessages.add(messages.get(i));
                        open.add(record);
                    }
                }
            } catch (RuntimeException | Error e) { // those after the one that failed are still open
                for (int j = i + 1; j < records.size(); j++) {
                    open.add(records.get(j));
                }
                throw e;
            }
            if (retrying.isEmpty()) {
                return;
            }
            int first = Integer.MAX_VALUE;
            for (int k = 0; k < retrying.size(); k++) {
                first = Math.min(first, retryingAttempts[k] - 1);
            }
            if (!Lane.pause(retry.backoffAfter(first), isStopping)) {
                retrying.forEach(this::returnToBroker);
                open.clear();
                return;
            }
            records = retrying;
            messages = retryingMessages;
            attempts = java.util.Arrays.copyOf(retryingAttempts, retrying.size());
        }
    }

    /** Calls the batch handler; returns what it threw (a failure of the whole batch), else null. */
    private Exception invokeBatch(DefaultBatch<T> batch) {
        long cpu = cost == null ? ClientCost.NOT_SAMPLED : ClientCost.startSample();
        try {
            batching.handler().handle(batch);
            return null;
        } catch (Exception e) {
            return e;
        } finally { // the handler's CPU is the application's, not the client's
            ClientCost.Account.handlerEnded(cost, cpu);
        }
    }

    private void invoke(Message<T> message, DeliveryContext context, InboundRecord record) throws Exception {
        long cpu = cost == null ? ClientCost.NOT_SAMPLED : ClientCost.startSample();
        try {
            if (observations == null) {
                handler.handle(message, context);
            } else {
                Tracing.handle(observations, record.headers(), adapter.id(), settings.instance(), spec.destination(), spec.group())
                        .observeChecked(() -> handler.handle(message, context));
            }
        } finally { // the handler's CPU is the application's, not the client's
            ClientCost.Account.handlerEnded(cost, cpu);
        }
    }

    /** The handler's context; its traceparent is read from the record's headers only if asked for. */
    private DeliveryContext context(InboundRecord record, int attempt, int maxAttempts) {
        return DeliveryContext.received(spec.destination(), spec.group(), settings.instance(), adapter.id(), record.partition(),
                record.offset(), attempt, maxAttempts, record, contextScope);
    }

    private void deadLetter(InboundRecord record, String id, Exception error, int attempt, String reason, boolean dedup) {
        Map<String, String> headers = BrokerRetry.republished(record, id);
        headers.put(Envelope.DEAD_LETTER_ATTEMPTS, Integer.toString(attempt));
        headers.put(Envelope.ERROR_TYPE, error.getClass().getName());
        String text = String.valueOf(error.getMessage());
        headers.put(Envelope.ERROR_MESSAGE, text.length() > MAX_ERROR_MESSAGE ? text.substring(0, MAX_ERROR_MESSAGE) : text);
        headers.put(Envelope.ORIGINAL_DESTINATION, spec.destination());
        headers.put(Envelope.DEAD_LETTER_GROUP, spec.group());
        headers.put(Envelope.DEAD_LETTER_REASON, reason);
        CompletableFuture<?> sent;
        try {
            sent = deadLetters.send(new OutboundRecord(settings.deadLetter(), record.key(), headers, record.payload(), 0));
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((result, failure) -> {
            if (failure == null) {
                ConsumeRecorder m = meters;
                if (m != null) m.deadLettered(reason);
                if (dedup) {
                    store.complete(scope, id);
                }
                settle(record, true);
            } else {
                log.error("Could not dead-letter message {} to '{}'; returning it to the broker for redelivery", id,
                        settings.deadLetter(), failure);
                if (dedup) {
                    store.release(scope, id);
                }
                settle(record, false);
            }
        });
    }

    private void returnToBroker(InboundRecord record) {
        settle(record, false);
    }

    /** Acknowledges a batch whose records are all handled, in one call where the adapter can. */
    private void settleAll(List<InboundRecord> records) {
        try {
            consumer.ackInOrder(records);
        } finally {
            if (inFlight.addAndGet(-records.size()) == 0 && stopping) {
                synchronized (drained) {
                    drained.notifyAll();
                }
            }
        }
    }

    private void settle(InboundRecord record, boolean ack) {
        try {
            if (ack) {
                record.ack();
            } else {
                record.nack();
            }
        } finally {
            if (inFlight.decrementAndGet() == 0 && stopping) {
                synchronized (drained) {
                    drained.notifyAll();
                }
            }
        }
    }

    // ---- state the routing layer reads to tell when an instance is drained ----

    /** Records received and not yet settled. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The broker's backlog for this subscription's group, when the adapter can tell. */
    public java.util.OptionalLong backlog() {
        RawConsumer c = consumer;
        try {
            return c == null ? java.util.OptionalLong.empty() : c.backlog();
        } catch (RuntimeException e) {
            log.debug("Backlog of '{}' on '{}' could not be read", spec.destination(), settings.instance(), e);
            return java.util.OptionalLong.empty();
        }
    }

    /** {@link System#nanoTime()} when the last record arrived, as first seen by a call of this (or the subscription was made). */
    public long lastRecordNanos() {
        return arrivals.lastNanos();
    }

    /** The broker instance name. */
    public String instance() {
        return settings.instance();
    }

    // ---- Subscription ----

    @Override
    protected void stop() {
        stopping = true;
        try {
            if (consumer != null) {
                consumer.stop();
            }
            if (brokerRetry != null) {
                brokerRetry.stop();
            }
            if (!inline && !inlineBatches) {
                for (Lane lane : lanes) {
                    lane.stop();
                }
            }
            awaitDrained(settings.drainTimeout());
            if (!inline && !inlineBatches) {
                for (Lane lane : lanes) {
                    lane.join(1000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (consumer != null) {
                consumer.close();
            }
            if (brokerRetry != null) {
                brokerRetry.close();
            }
            if (deadLetters != null) {
                deadLetters.close();
            }
            if (meters != null) {
                meters.close();
            }
        }
    }

    private void awaitDrained(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (drained) {
            while (inFlight.get() > 0) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    log.warn("Subscription to '{}' closed with {} message(s) still in flight after {}; the broker will "
                            + "deliver them again", spec.destination(), inFlight.get(), timeout);
                    return;
                }
                drained.wait(left);
            }
        }
    }

    @Override
    public String toString() {
        return "Subscription[" + spec.destination() + ", group " + spec.group() + " on " + settings.instance() + "]";
    }
}
