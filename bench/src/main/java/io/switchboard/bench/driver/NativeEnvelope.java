package io.switchboard.bench.driver;

import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The attributes of Switchboard's default CloudEvents envelope (the lean one: values of the same
 * lengths), for native runs that carry what the SDK puts on the wire: mode
 * {@link BenchDriver#NATIVE_ENVELOPE} ({@code --native-envelope}). SDK/native-ce is then what the
 * SDK's code costs, native-ce/native what the envelope on the wire costs. Each driver writes them
 * under its adapter's names, as the adapter's mapping does:
 *
 * <ul>
 *   <li>Kafka: {@code ce_specversion}, {@code ce_id}, {@code ce_source}, {@code ce_type}; no
 *       {@code content-type} (the payload is bytes: the lean default leaves
 *       {@code application/octet-stream} out), no {@code ce_time} (the record's CreateTime carries
 *       the send time), the key only as the record key: 78 bytes of headers, as the SDK's.
 *   <li>RabbitMQ: {@code cloudEvents_specversion|id|source|type|time}, the key as
 *       {@code cloudEvents_subject}; no content type (bytes), the id
 *       also as {@code message-id}, the time also as {@code timestamp} (whole seconds).
 *   <li>RocketMQ: {@code CE_specversion|id|source|type|time} (no content type: bytes); the key as
 *       RocketMQ's {@code KEYS}.
 * </ul>
 *
 * One instance per producer, used by one sender thread at a time; the id is a per-producer prefix
 * and a counter, and the time string is rebuilt once a second, so that the native side pays for
 * carrying the attributes, not for the SDK's id and time generation.
 */
final class NativeEnvelope {

    /** The id's header on Kafka, read by native-ce consumers as the SDK reads it. */
    static final String ID_HEADER = "ce_id";
    static final String SPEC_VERSION = "1.0";
    static final String SOURCE = "switchboard";
    static final String TYPE = "message";
    static final String CONTENT_TYPE = "application/octet-stream";
    /** The length of the default envelope's ids (a UUIDv7 in a 64-character alphabet). */
    static final int ID_LENGTH = 22;
    private static final int COUNTER_DIGITS = 11;

    private final String idPrefix;
    private long sequence;
    private long second = Long.MIN_VALUE;
    private String time;

    NativeEnvelope() {
        String random = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        this.idPrefix = random.substring(0, ID_LENGTH - COUNTER_DIGITS);
    }

    /** The next id: unique per producer, {@value #ID_LENGTH} characters. */
    String nextId() {
        String seq = Long.toString(sequence++);
        return idPrefix + "00000000000".substring(Math.min(COUNTER_DIGITS, seq.length())) + seq;
    }

    /** The time attribute in the SDK's microsecond form (27 characters), for brokers that do not stamp the send time. */
    String time(long sendMicros) {
        long s = Math.floorDiv(sendMicros, 1_000_000L);
        if (s != second) {
            second = s;
            time = Instant.ofEpochSecond(s).toString().replace("Z", ".000000Z");
        }
        return time;
    }
}
