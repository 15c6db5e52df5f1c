package io.switchboard.internal;

import io.switchboard.Codec;
import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.UnsupportedCapabilityException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.internal.metrics.PublishRecorder;
import io.switchboard.internal.metrics.Tracing;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** The publisher core hands out: codec, envelope and checks around an adapter's {@link RawPublisher}. */
public final class DefaultPublisher<T> implements Publisher<T> {

    /**
     * Property: {@code true} stamps a random W3C traceparent on every message that no tracer
     * stamped (the behaviour before 2026-11-23); default {@code false}, so a message carries a
     * traceparent only when tracing is on.
     */
    public static final String STAMP_TRACEPARENT = "switchboard.tracing.stamp-traceparent";

    /** CloudEvents {@code source} unless property {@code switchboard.source} says otherwise. */
    static final String DEFAULT_SOURCE = "switchboard";
    /** CloudEvents {@code type} of the default envelope unless property {@code switchboard.type} says otherwise. */
    static final String DEFAULT_TYPE = "message";
    /** CloudEvents {@code type} of {@code cloudevents-full} unless property {@code switchboard.type} says otherwise. */
    static final String FULL_DEFAULT_TYPE = "io.switchboard.message";

    /**
     * The content type the lean envelope leaves out: CloudEvents' {@code datacontenttype} is
     * optional, and opaque bytes say nothing a consumer can use (38 bytes of header on Kafka).
     */
    static final String OPAQUE_BYTES = "application/octet-stream";

    /** Room for the envelope's own headers (names and values, trace headers included). */
    private static final int ENVELOPE_ALLOWANCE = 512;

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
    private final ObservationRegistry observations;
    /** Property {@value #STAMP_TRACEPARENT}: a random traceparent on messages that tracing did not stamp. */
    private final boolean stampTraceparent;
    /** Property {@value EnvelopeFormat#PROPERTY} is {@code compact}: one {@link Envelope#COMPACT} header, no CloudEvents attributes. */
    private final boolean compact;
    /** Property {@value EnvelopeFormat#PROPERTY} is {@code cloudevents-full}: every attribute, as before the lean default. */
    private final boolean full;
    /**
     * The lean default on a broker that stamps each record's send time ({@link Capabilities#publishTimestamp()}):
     * a message without an explicit timestamp is written without {@code ce_time}.
     */
    private final boolean timeFromBroker;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Wraps a raw publisher. */
    public DefaultPublisher(RawPublisher raw, PublisherSpec spec, Codec<T> codec, Capabilities capabilities,
            BrokerConfig config, Telemetry telemetry, Consumer<AutoCloseable> onClose) {
        this.raw = raw;
        this.destination = spec.destination();
        this.codec = codec;
        this.capabilities = capabilities;
        this.instance = config.instanceName();
        EnvelopeFormat format = EnvelopeFormat.of(config);
        this.compact = format == EnvelopeFormat.COMPACT;
        this.full = format == EnvelopeFormat.CLOUDEVENTS_FULL;
        this.timeFromBroker = format == EnvelopeFormat.CLOUDEVENTS && capabilities.publishTimestamp();
        this.source = config.get("switchboard.source", DEFAULT_SOURCE);
        this.type = config.get("switchboard.type", full ? FULL_DEFAULT_TYPE : DEFAULT_TYPE);
        this.contentType = codec.contentType();
        this.leanContentType = OPAQUE_BYTES.equals(contentType) ? null : contentType;
        this.onClose = onClose;
        this.broker = capabilities.brokerId();
        this.meters = telemetry.publisherMeters(destination);
        this.observations = telemetry.observationsOrNull();
        this.stampTraceparent = config.getBoolean(STAMP_TRACEPARENT, false);
    }

    @Override
    public CompletionStage<PublishReceipt> publish(Message<T> message) {
        if (closed.get()) {
            throw new SwitchboardClosedException("Publisher for '" + destination + "' on broker '" + instance
                    + "' is closed; create a new one with Switchboard.publisher(..)");
        }
        if (message == null) {
            throw new InvalidMessageException("Message to '" + destination + "' is null; publish a Message, or the "
                    + "payload with publish(payload)");
        }
        if (message.payload() == null) {
            throw new InvalidMessageException("Message to '" + destination + "' has a null payload; publish an empty "
                    + "value (for example new byte[0] or \"\") instead of null");
        }
        byte[] bytes = codec.encode(message.payload());
        String id = message.id() != null ? message.id() : full ? MessageIds.next() : MessageIds.nextShort();
        Map<String, String> headers = envelope(message, id);
        checkSize(id, bytes, message.headers());
        long deliverAt = deliverAt(message);
        Observation observation = observations == null ? null
                : Tracing.startPublish(observations, headers, broker, instance, destination);
        if (stampTraceparent && !headers.containsKey(Envelope.TRACEPARENT)) {
            headers.put(Envelope.TRACEPARENT, MessageIds.newTraceparent());
        }
        OutboundRecord record = new OutboundRecord(destination, message.key(), headers, bytes, deliverAt);
        if (meters == null && observation == null) {
            return raw.send(record).thenApply(r -> new PublishReceipt(id, destination, instance, broker, r.partition(), r.offset()));
        }
        long start = System.nanoTime();
        CompletableFuture<io.switchboard.spi.SendResult> sent;
        try {
            sent = raw.send(record);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        // the caller's future completes with the adapter's own exception, not a CompletionException around it
        CompletableFuture<PublishReceipt> result = new CompletableFuture<>();
        sent.whenComplete((r, error) -> {
            if (meters != null) {
                meters.published(start, bytes.length, error == null);
            }
            if (observation != null) {
                if (error != null) {
                    observation.error(error);
                }
                observation.stop();
            }
            if (error == null) {
                result.complete(new PublishReceipt(id, destination, instance, broker, r.partition(), r.offset()));
            } else {
                result.completeExceptionally(error);
            }
        });
        return result;
    }

    private Map<String, String> envelope(Message<T> message, String id) {
        Instant given = message.timestamp();
        if (!compact && !full) {
            // lean: the broker carries the key, and the send time where it stamps one; no attempt on a first publish
            String time = given == null && timeFromBroker ? null : micros(given != null ? given : Instant.now());
            return EnvelopeHeaders.cloudEvents(message.headers(), id, source, type, time, leanContentType, null, null);
        }
        Instant time = given != null ? given : Instant.now();
        long second = time.getEpochSecond();
        if (full) {
            return EnvelopeHeaders.cloudEvents(message.headers(), id, source, type, micros(time), contentType, "1",
                    message.key());
        }
        if (second < MessageIds.MIN_COMPACT_SECOND || second > MessageIds.MAX_COMPACT_SECOND) {
            throw new InvalidMessageException("Message " + id + " to '" + destination + "' has timestamp " + time
                    + ", which the compact envelope of broker '" + instance + "' cannot carry (epoch microseconds must fit "
                    + "in a long: about 290,000 years either side of 1970); give a timestamp in that range, or none");
        }
        return EnvelopeHeaders.compact(message.headers(), MessageIds.formatCompact(second, time.getNano(), id));
    }

    private static String micros(Instant time) {
        return MessageIds.formatMicros(time.getEpochSecond(), time.getNano());
    }

    private void checkSize(String id, byte[] bytes, Map<String, String> userHeaders) {
        int headerBytes = ENVELOPE_ALLOWANCE;
        for (Map.Entry<String, String> e : userHeaders.entrySet()) {
            headerBytes += e.getKey().length() + e.getValue().length();
        }
        long total = (long) bytes.length + headerBytes;
        if (total > capabilities.maxMessageSize()) {
            throw new MessageTooLargeException("Message " + id + " to '" + destination + "' is " + total + " bytes (payload "
                    + bytes.length + " + headers " + headerBytes + ") but broker '" + instance + "' (" + capabilities.brokerId()
                    + ") accepts at most " + capabilities.maxMessageSize() + " bytes; send a reference to the data "
                    + "(claim check) or raise the broker's limit");
        }
    }

    private long deliverAt(Message<T> message) {
        if (message.delay() == null || message.delay().isZero()) {
            return 0;
        }
        if (!capabilities.delayedDelivery()) {
            throw new UnsupportedCapabilityException("Broker '" + instance + "' (" + capabilities.brokerId()
                    + ") has no delayed delivery for message to '" + destination + "'; alternative: a broker with "
                    + "delayed delivery (rocketmq), or schedule the publish in the application");
        }
        return System.currentTimeMillis() + message.delay().toMillis();
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
