package io.switchboard.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.TypedCodec;
import io.switchboard.internal.comparison.ClientCost;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.internal.envelope.EnvelopeHeaders;
import io.switchboard.internal.envelope.MessageIds;
import io.switchboard.internal.metrics.PublishRecorder;
import io.switchboard.internal.metrics.Tracing;
import io.switchboard.internal.metrics.WallClock;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The publisher core hands out: codec, envelope and checks around an adapter's {@link RawPublisher}. */
public final class DefaultPublisher<T> implements Publisher<T> {

    private static final Logger log = LoggerFactory.getLogger(DefaultPublisher.class);

    /** Property: {@code true} stamps a random W3C traceparent on messages no tracer stamped; default false. */
    public static final String STAMP_TRACEPARENT = "switchboard.tracing.stamp-traceparent";

    /** CloudEvents {@code source} unless property {@code switchboard.source} says otherwise. */
    static final String DEFAULT_SOURCE = "switchboard";
    /** CloudEvents {@code type} of the default envelope unless property {@code switchboard.type} says otherwise. */
    static final String DEFAULT_TYPE = "message";
    /** CloudEvents {@code type} of {@code cloudevents-full} unless property {@code switchboard.type} says otherwise. */
    static final String FULL_DEFAULT_TYPE = "io.switchboard.message";

    /** The content type the lean envelope leaves out: optional in CloudEvents, and opaque bytes say nothing. */
    static final String OPAQUE_BYTES = "application/octet-stream";

    private final RawPublisher raw;
    private final String destination;
    private final Codec<T> codec;
    private final Capabilities capabilities;
    private final String instance;
    private final String source;
    private final String type;
    private final String contentType;
    /** The content type the lean envelope writes: the codec's, or null for opaque bytes. */
    private final String leanContentType;
    private final Consumer<AutoCloseable> onClose;
    private final String broker;
    private final PublishRecorder meters;
    /** Whether {@link #meters} records latencies (not {@code switchboard.metrics.timers=off}). */
    private final boolean timed;
    private final ObservationRegistry observations;
    /** Property {@value #STAMP_TRACEPARENT}: a random traceparent on messages that tracing did not stamp. */
    private final boolean stampTraceparent;
    /** Property {@value EnvelopeFormat#PROPERTY} is {@code compact}: one {@link Envelope#COMPACT} header, no CloudEvents attributes. */
    private final boolean compact;
    /** Property {@value EnvelopeFormat#PROPERTY} is {@code cloudevents-full}: every attribute, as before the lean default. */
    private final boolean full;
    /** Property {@value EnvelopeFormat#PROPERTY} is {@code none}: no envelope header, id and time from the broker. */
    private final boolean none;
    /**
     * The lean default on a broker that stamps each record's send time, where no comparison judges the instance (or
     * {@code none}): no {@code ce_time} without a given timestamp.
     */
    private final boolean timeFromBroker;
    /** The header names and the attribute values every message of this publisher carries. */
    private final EnvelopeHeaders.Layout layout;
    /** The codec when it writes a type id per payload class, or null (one check at construction, none a message). */
    private final TypedCodec<T> typed;
    /** With a typed codec on the CloudEvents type: the layout of each type id, whose constant type it is. */
    private final ConcurrentHashMap<String, EnvelopeHeaders.Layout> typeLayouts;
    /** {@code none} on a broker whose position is the id, nothing tracing: a message with nothing of its own gets these. */
    private final EnvelopeHeaders shared;
    /** Whether a publish reads nanoTime: for the latency timers, or for the id of the lean envelope on Kafka. */
    private final boolean readsClock;
    /** A message {@link #send} could not deliver is dropped by contract (logged at WARN, not ERROR). */
    private final boolean atMostOnce;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The instance's client cost, or null when nothing compares instances. */
    private final ClientCost.Account cost;
    /** Where a publish held back is reported. */
    private final io.switchboard.spi.ClientEvents events;
    /** Property {@value KeyFormat#PROPERTY} of this publisher, else its instance; null for {@code string}: no check. */
    private final KeyFormat keyFormat;

    /** Wraps a raw publisher. */
    public DefaultPublisher(RawPublisher raw, PublisherSpec spec, Codec<T> codec, Capabilities capabilities,
            BrokerConfig config, Telemetry telemetry, Consumer<AutoCloseable> onClose) {
        this.raw = raw;
        this.destination = spec.destination();
        this.codec = codec;
        this.capabilities = capabilities;
        this.instance = config.instanceName();
        this.events = config.events();
        KeyFormat keys = KeyFormat.of(spec.properties(), config);
        this.keyFormat = keys == KeyFormat.STRING ? null : keys;
        EnvelopeFormat format = EnvelopeFormat.of(config);
        this.compact = format == EnvelopeFormat.COMPACT;
        this.full = format == EnvelopeFormat.CLOUDEVENTS_FULL;
        this.none = format == EnvelopeFormat.NONE;
        // an instance the comparison judges writes the microsecond ce_time as the other brokers do: one clock for every
        // broker's end-to-end latency (a millisecond CreateTime reads 0.5 ms high on average, LogAppendTime leaves out
        // the producer's batching); envelope=none gives that up
        this.timeFromBroker = (none || format == EnvelopeFormat.CLOUDEVENTS && telemetry.cost() == null)
                && capabilities.publishTimestamp();
        this.source = config.get("switchboard.source", DEFAULT_SOURCE);
        this.type = config.get("switchboard.type", full ? FULL_DEFAULT_TYPE : DEFAULT_TYPE);
        this.contentType = codec.contentType();
        this.leanContentType = OPAQUE_BYTES.equals(contentType) ? null : contentType;
        this.onClose = onClose;
        this.broker = capabilities.brokerId();
        this.meters = telemetry.publisherMeters(destination);
        this.timed = meters != null && meters.timed();
        this.observations = telemetry.observationsOrNull();
        this.stampTraceparent = config.getBoolean(STAMP_TRACEPARENT, false);
        this.layout = none ? EnvelopeHeaders.Layout.none() : compact ? EnvelopeHeaders.Layout.compact()
                : EnvelopeHeaders.Layout.cloudEvents(source, type, full ? contentType : leanContentType, full ? "1" : null);
        this.atMostOnce = spec.delivery() == Delivery.AT_MOST_ONCE;
        this.cost = telemetry.cost();
        this.typed = codec instanceof TypedCodec<T> t ? t : null;
        this.typeLayouts = typed != null && Envelope.TYPE.equals(typed.header()) ? new ConcurrentHashMap<>() : null;
        if (typeLayouts != null && (none || compact)) {
            throw new ConfigurationException("Publisher for '" + destination + "' writes its type ids as the CloudEvents type ("
                    + Envelope.TYPE + "), which broker instance '" + instance + "' does not write: its switchboard.envelope is "
                    + format.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + ". Set switchboard.envelope to "
                    + "cloudevents or cloudevents-full, or write the type id in a header of its own (TypedCodec's default, "
                    + TypedCodec.SPRING_TYPE_ID + ")");
        }
        this.shared = none && timeFromBroker && observations == null && !stampTraceparent ? EnvelopeHeaders.shared(layout) : null;
        this.readsClock = timed || (timeFromBroker && !none); // elsewhere the id's time is the envelope's, or none
    }

    @Override
    public CompletionStage<PublishReceipt> publish(T payload) {
        checkOpen();
        long cpu = sampleStart();
        long now = readsClock ? System.nanoTime() : 0L; // 30 ns a read on a VM's clock
        OutboundRecord record = record(payload, null, Map.of(), null, null, null, null, now);
        CompletionStage<PublishReceipt> receipt = withReceipt(record, now);
        sampleEnd(cpu, record);
        return receipt;
    }

    @Override
    public CompletionStage<PublishReceipt> publish(Message<T> message) {
        checkOpen();
        checkNotNull(message);
        long cpu = sampleStart();
        long now = readsClock ? System.nanoTime() : 0L;
        OutboundRecord record = record(message.payload(), message.key(), message.headers(), message.id(), message.timestamp(),
                message.delay(), message.deliverAt(), now);
        CompletionStage<PublishReceipt> receipt = withReceipt(record, now);
        sampleEnd(cpu, record);
        return receipt;
    }

    @Override
    public void publish(Message<T> message, BiConsumer<? super PublishReceipt, ? super Throwable> callback) {
        checkOpen();
        checkNotNull(message);
        if (callback == null) {
            Publisher.super.publish(message, null); // throws the error naming the fix
        }
        long cpu = sampleStart();
        long now = readsClock ? System.nanoTime() : 0L;
        OutboundRecord record = record(message.payload(), message.key(), message.headers(), message.id(), message.timestamp(),
                message.delay(), message.deliverAt(), now);
        Observation observation = observe(record);
        // the adapter's callback calls the caller's: no future, no dependent to complete
        sendTo(record, new Pending(this, (EnvelopeHeaders) record.headers(), now, record.payload().length,
                observation, true, callback));
        sampleEnd(cpu, record);
    }

    @Override
    public void send(T payload) {
        checkOpen();
        long cpu = sampleStart();
        long now = readsClock ? System.nanoTime() : 0L;
        OutboundRecord record = record(payload, null, Map.of(), null, null, null, null, now);
        withoutReceipt(record, now);
        sampleEnd(cpu, record);
    }

    @Override
    public void send(Message<T> message) {
        checkOpen();
        checkNotNull(message);
        long cpu = sampleStart();
        long now = readsClock ? System.nanoTime() : 0L;
        OutboundRecord record = record(message.payload(), message.key(), message.headers(), message.id(), message.timestamp(),
                message.delay(), message.deliverAt(), now);
        withoutReceipt(record, now);
        sampleEnd(cpu, record);
    }

    /**
     * Every message is encoded and checked before any is handed to the adapter, so bad input refuses the whole call and
     * sends nothing; then the adapter takes them in one call ({@link RawPublisher#sendAll}), in as few broker calls as
     * its broker allows. Client CPU is not sampled here: a call of many messages is not one message's cost.
     */
    @Override
    public CompletionStage<List<PublishReceipt>> publishAll(List<Message<T>> messages) {
        checkOpen();
        if (messages == null) {
            throw new InvalidMessageException("The list of messages to '" + destination + "' is null; pass a list, "
                    + "empty for nothing to publish");
        }
        int n = messages.size();
        if (n == 0) {
            return CompletableFuture.completedFuture(List.of());
        }
        long now = readsClock ? System.nanoTime() : 0L;
        List<OutboundRecord> records = new ArrayList<>(n);
        for (Message<T> message : messages) {
            checkNotNull(message);
            records.add(record(message.payload(), message.key(), message.headers(), message.id(), message.timestamp(),
                    message.delay(), message.deliverAt(), now));
        }
        List<Pending> pendings = new ArrayList<>(n);
        for (OutboundRecord record : records) {
            pendings.add(new Pending(this, (EnvelopeHeaders) record.headers(), now, record.payload().length,
                    observe(record), true, null));
        }
        try {
            raw.sendAll(records, pendings);
        } catch (RuntimeException e) { // an adapter breaking the contract: every record still ends
            for (Pending pending : pendings) {
                if (!pending.isDone()) {
                    pending.accept(null, e);
                }
            }
        }
        return CompletableFuture.allOf(pendings.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<PublishReceipt> receipts = new ArrayList<>(n);
            pendings.forEach(p -> receipts.add(p.join()));
            return receipts;
        });
    }

    /** The thread's CPU clock when this call is one of the {@link ClientCost#SAMPLE_EVERY} that are timed. */
    private long sampleStart() {
        return cost == null ? ClientCost.NOT_SAMPLED : ClientCost.startSample();
    }

    private void sampleEnd(long cpuStart, OutboundRecord record) {
        if (cpuStart != ClientCost.NOT_SAMPLED) cost.publishSampled(cpuStart < 0 ? -1 : ClientCost.threadCpu() - cpuStart,
                record.wireBytes());
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new SwitchboardClosedException("Publisher for '" + destination + "' on broker '" + instance
                    + "' is closed; create a new one with Switchboard.publisher(..)");
        }
    }

    private void checkNotNull(Message<T> message) {
        if (message == null) {
            throw new InvalidMessageException("Message to '" + destination + "' is null; publish a Message, or the "
                    + "payload with publish(payload)");
        }
    }

    /** Encodes, stamps the envelope, checks size and delay, before the adapter's send; {@code nowNanos}: the one clock read. */
    private OutboundRecord record(T payload, String key, Map<String, String> userHeaders, String id, Instant timestamp,
            Duration delay, Instant at, long nowNanos) {
        if (payload == null) {
            throw new InvalidMessageException("Message to '" + destination + "' has a null payload; publish an empty "
                    + "value (for example new byte[0] or \"\") instead of null");
        }
        if (key != null && keyFormat != null) {
            keyFormat.check(key, destination, instance); // the same refusal on every broker, before anything is sent
        }
        byte[] bytes = codec.encode(payload);
        EnvelopeHeaders.Layout lay = layout;
        if (typed != null) {
            String typeId = typed.typeIdOf(payload);
            if (typeLayouts != null) {
                lay = typeLayout(typeId);
            } else if (!userHeaders.containsKey(typed.header())) { // a type id the application set stays
                Map<String, String> withType = new HashMap<>(userHeaders);
                withType.put(typed.header(), typeId);
                userHeaders = withType;
            }
        }
        EnvelopeHeaders headers = envelope(lay, key, userHeaders, id, timestamp, nowNanos);
        PublishLimits.checkSize(headers, bytes, userHeaders, capabilities, destination, instance);
        return new OutboundRecord(destination, key, headers, bytes, PublishLimits.deliverAt(delay, at, capabilities, destination,
                instance));
    }

    /** Starts the publish observation, whose tracer writes the trace headers, and stamps a traceparent when configured. */
    private Observation observe(OutboundRecord record) {
        Map<String, String> headers = record.headers();
        Observation observation = observations == null ? null
                : Tracing.startPublish(observations, headers, broker, instance, destination);
        if (stampTraceparent && !headers.containsKey(Envelope.TRACEPARENT)) {
            headers.put(Envelope.TRACEPARENT, MessageIds.newTraceparent());
        }
        return observation;
    }

    private CompletionStage<PublishReceipt> withReceipt(OutboundRecord record, long start) {
        Observation observation = observe(record);
        EnvelopeHeaders headers = (EnvelopeHeaders) record.headers();
        // one object is the adapter's callback and the caller's future, which completes with the adapter's own
        // exception, not a CompletionException around it; an adapter with a callback client makes no future of its own
        Pending pending = new Pending(this, headers, start, record.payload().length, observation, true, null);
        sendTo(record, pending);
        return pending;
    }

    private void withoutReceipt(OutboundRecord record, long start) {
        Observation observation = observe(record);
        sendTo(record, new Pending(this, (EnvelopeHeaders) record.headers(), start, record.payload().length,
                observation, false, null));
    }

    private void sendTo(OutboundRecord record, Pending pending) {
        try {
            raw.send(record, pending);
        } catch (RuntimeException e) { // an adapter breaking the contract (its send threw): the record still ends
            if (!pending.isDone()) {
                pending.accept(null, e);
            }
        }
    }

    private PublishReceipt receipt(EnvelopeHeaders headers, SendResult r) {
        if (none && r.offset() >= 0 && capabilities.publishTimestamp()) {
            // no id on the wire: the consumer's id is the record's position, written when asked
            return PublishReceipt.atPosition(destination, instance, broker, r.partition(), r.offset());
        }
        // by identity: the headers were made on the sender's thread and are not read here (a cache miss a message)
        return headers == shared ? new PublishReceipt(headers.id(), destination, instance, broker, r.partition(), r.offset())
                : PublishReceipt.withIdFrom(headers, destination, instance, broker, r.partition(), r.offset());
    }

    /** Meters and observation of a publish that has ended, with {@code error} or acknowledged. */
    private void ended(long start, int payloadBytes, Observation observation, Throwable error) {
        if (meters != null) { // one clock read for both recorders, none when they only count
            meters.published(start, timed ? System.nanoTime() : start, payloadBytes, error == null);
        }
        if (error != null) {
            backPressure(error);
        }
        if (observation != null) {
            if (error != null) {
                observation.error(error);
            }
            observation.stop();
        }
    }

    /** Puts a publish the broker or a limit held back on the instance's timeline (coalesced there per second). */
    private void backPressure(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof io.switchboard.BackPressureException) {
            events.instant(io.switchboard.spi.EventKinds.BACK_PRESSURE, destination, String.valueOf(cause.getMessage()));
        }
    }

    /**
     * A message sent without a receipt that the broker did not take: nobody holds a future to learn it, so it is logged
     * (ERROR: lost unless the application publishes it again; at-most-once at WARN), after the meters counted it.
     */
    private void lost(EnvelopeHeaders headers, Throwable error) {
        if (atMostOnce) {
            log.warn("Message {} to '{}' on broker instance '{}' ({}) was not taken by the broker and is dropped "
                    + "(at-most-once, sent without a receipt): {}", headers.id(), destination, instance, broker, error.toString());
        } else {
            log.error("Message {} to '{}' on broker instance '{}' ({}) was not acknowledged by the broker and is LOST: it was "
                    + "sent with send(..), which returns no receipt, so nothing retries it; {}. Use publish(..) where a "
                    + "failure must be handled", headers.id(), destination, instance, broker, error.toString());
        }
    }

    /** The end of a later-acknowledged publish: one object is the adapter's callback and {@link #publish}'s future. */
    private static final class Pending extends CompletableFuture<PublishReceipt> implements BiConsumer<SendResult, Throwable> {
        private final DefaultPublisher<?> publisher;
        private final EnvelopeHeaders headers;
        private final long start;
        private final int payloadBytes;
        private final Observation observation;
        private final boolean receipt;
        /** Where the outcome goes instead of this future (never completed nor handed out then), or null. */
        private final BiConsumer<? super PublishReceipt, ? super Throwable> callback;
        private boolean called; // a contract-breaking adapter's second call (send threw after calling back) is ignored

        Pending(DefaultPublisher<?> publisher, EnvelopeHeaders headers, long start, int payloadBytes,
                Observation observation, boolean receipt, BiConsumer<? super PublishReceipt, ? super Throwable> callback) {
            this.publisher = publisher;
            this.headers = headers;
            this.start = start;
            this.payloadBytes = payloadBytes;
            this.observation = observation;
            this.receipt = receipt;
            this.callback = callback;
        }

        @Override
        public void accept(SendResult r, Throwable error) {
            if (callback != null) {
                if (called) {
                    return;
                }
                called = true;
                publisher.ended(start, payloadBytes, observation, error);
                try {
                    callback.accept(error == null ? publisher.receipt(headers, r) : null, error);
                } catch (RuntimeException e) {
                    SendFailures.callbackFailed(publisher.destination, e);
                }
                return;
            }
            publisher.ended(start, payloadBytes, observation, error);
            if (!receipt) {
                if (error != null) {
                    publisher.lost(headers, error);
                }
            } else if (error == null) {
                complete(publisher.receipt(headers, r));
            } else {
                completeExceptionally(error);
            }
        }
    }

    /** The layout whose CloudEvents type is {@code typeId}, made once per type id. */
    private EnvelopeHeaders.Layout typeLayout(String typeId) {
        EnvelopeHeaders.Layout l = typeLayouts.get(typeId);
        return l != null ? l : typeLayouts.computeIfAbsent(typeId, t -> EnvelopeHeaders.Layout.cloudEvents(source, t,
                full ? contentType : leanContentType, full ? "1" : null));
    }

    private EnvelopeHeaders envelope(EnvelopeHeaders.Layout layout, String key, Map<String, String> userHeaders, String id,
            Instant given, long nowNanos) {
        if (shared != null && id == null && given == null && userHeaders.isEmpty()) {
            return shared; // no object a message: the id is the record's position, made only where read
        }
        EnvelopeHeaders headers = new EnvelopeHeaders(layout, userHeaders);
        long micros = OutboundRecord.NO_TIME;
        if (given == null) {
            // lean: the broker carries the key, and the send time where it stamps one; no attempt on a first publish
            if (compact || full || !timeFromBroker) {
                Instant now = Instant.now();
                micros = MessageIds.epochMicros(now.getEpochSecond(), now.getNano());
            }
        } else if (given.getEpochSecond() >= MessageIds.MIN_COMPACT_SECOND
                && given.getEpochSecond() <= MessageIds.MAX_COMPACT_SECOND) {
            micros = MessageIds.epochMicros(given.getEpochSecond(), given.getNano());
        }
        if (id != null) {
            headers.givenId(id);
        } else if (none && timeFromBroker) { // no id on the wire, the consumer's is the position: one is made if read
            headers.deferredId();
        } else {
            // the id's milliseconds are the time's, or without one the wall clock at the publish's nanoTime reading
            long millis = given == null && micros != OutboundRecord.NO_TIME ? Math.floorDiv(micros, 1000L)
                    : readsClock ? Math.floorDiv(WallClock.micros(nowNanos), 1000L) : System.currentTimeMillis();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            headers.generatedId(MessageIds.idHigh(millis, random), MessageIds.idLow(random), !full);
        }
        if (micros != OutboundRecord.NO_TIME) {
            headers.timeMicros(micros);
        } else if (given != null) {
            if (compact) {
                throw new InvalidMessageException("Message " + headers.id() + " to '" + destination + "' has timestamp "
                        + given + ", which the compact envelope of broker '" + instance + "' cannot carry (epoch "
                        + "microseconds must fit in a long: about 290,000 years either side of 1970); give a timestamp in "
                        + "that range, or none");
            }
            headers.timeText(MessageIds.formatMicros(given.getEpochSecond(), given.getNano()));
        }
        if (full && key != null) {
            headers.put(Envelope.SUBJECT, key);
        }
        return headers;
    }

    @Override
    public String destination() {
        return destination;
    }

    /** The circuit breaker guarding this publisher's broker calls, or null when none is configured. */
    public io.github.resilience4j.circuitbreaker.CircuitBreaker circuitBreaker() {
        return io.switchboard.internal.resilience.ResilientPublisher.circuitBreakerOf(raw);
    }

    /** The broker instance name. */
    public String instance() {
        return instance;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                raw.close();
            } finally {
                onClose.accept(this);
            }
        }
    }

    @Override
    public String toString() {
        return "Publisher[" + destination + " on " + instance + "]";
    }
}
