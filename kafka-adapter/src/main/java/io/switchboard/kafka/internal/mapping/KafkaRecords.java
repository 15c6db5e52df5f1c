package io.switchboard.kafka.internal.mapping;

import io.switchboard.Envelope;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps records between Switchboard and Kafka. Envelope headers already carry the CloudEvents Kafka
 * binding's names ({@code ce_*}, {@code content-type}), so every header is written as it is, its
 * value in UTF-8; the key's bytes are those of the publisher's or subscription's {@link KeyFormat}
 * (UTF-8 text by default), which are kafka-clients' serializer's for the same key, so Kafka's default
 * partitioner places a key exactly as a plain producer with that serializer would.
 */
public final class KafkaRecords {

    private static final Logger log = LoggerFactory.getLogger(KafkaRecords.class);

    private KafkaRecords() {}

    /** The Kafka record of {@code record}, its key text in UTF-8 (key format {@code string}). */
    public static ProducerRecord<byte[], byte[]> toKafka(OutboundRecord record) {
        return toKafka(record, record.destination(), KeyFormat.STRING);
    }

    /** The Kafka record of {@code record}, for {@code topic} (its destination, or a delay topic), its key as {@code keys} writes it. */
    public static ProducerRecord<byte[], byte[]> toKafka(OutboundRecord record, String topic, KeyFormat keys) {
        return withHeaders(record, new ProducerRecord<>(topic, null, null, key(record, keys), record.payload()));
    }

    /**
     * The record's key as the Kafka record's: the bytes of {@code keys} (UTF-8 for {@code string}), or null.
     *
     * @throws io.switchboard.InvalidMessageException when the key is not of that format (core refuses such keys
     *     before they reach an adapter)
     */
    public static byte[] key(OutboundRecord record, KeyFormat keys) {
        return record.key() == null ? null : keys.toBytes(record.key());
    }

    /** Writes {@code record}'s headers into {@code kafka}, a record made from it that has not been sent; returns it. */
    public static <R extends ProducerRecord<byte[], byte[]>> R withHeaders(OutboundRecord record, R kafka) {
        // core hands its envelope fields over without entry objects, and the generated id and time as bytes; the
        // envelope 'none' without trace or application headers has none to hand over
        if (!record.headers().isEmpty()) {
            record.forEachHeader(new HeaderCollector(kafka.headers()));
        }
        return kafka;
    }

    /**
     * Writes the headers of one outbound record straight into the Kafka record's own {@link Headers} (which stay
     * writable until it is sent; a list given to its constructor would be copied): text values encoded in UTF-8,
     * constant ones from the cache below; the id and time core wrote as ASCII bytes, wrapped as they come.
     */
    private static final class HeaderCollector implements OutboundRecord.HeaderWriter {
        private final Headers headers;

        HeaderCollector(Headers headers) {
            this.headers = headers;
        }

        @Override
        public void text(String name, String value) {
            headers.add(header(name, value));
        }

        @Override
        public void ascii(String name, byte[] value) {
            headers.add(new RecordHeader(name, value));
        }

        @Override
        public void constant(String name, String value) {
            headers.add(cached(name, value));
        }
    }

    /** Envelope attributes whose values are the same on every message of a publisher. */
    private static final Set<String> CONSTANT_HEADERS =
            Set.of(Envelope.SPEC_VERSION, Envelope.SOURCE, Envelope.TYPE, Envelope.CONTENT_TYPE, Envelope.ATTEMPT);
    /** Bound of the cache below: distinct constant headers seen (sources, types, content types). */
    private static final int MAX_CACHED = 1024;
    private static final ConcurrentHashMap<String, ConcurrentHashMap<String, Header>> CACHE = new ConcurrentHashMap<>();

    /**
     * The constant headers last looked up, by the hashes of name and value (both strings cache theirs): a publisher
     * hands over the same name and value strings on every message, so a hit is two loads and two identity compares
     * (inside {@code equals}) instead of two lookups in {@link #CACHE}, and an equal string from elsewhere hits too, so
     * no entry is made a message. Written without a lock; an entry is immutable, so a reader sees a whole one or an
     * older one.
     */
    private static final Recent[] RECENT = new Recent[64];

    private record Recent(String name, String value, Header header) {}

    /**
     * One outbound header. The constant envelope attributes reuse one immutable {@link RecordHeader}
     * per name and value (Kafka only reads a header while serializing it), so a publish encodes
     * and allocates only the headers that change per message.
     */
    static Header header(String name, String value) {
        if (!CONSTANT_HEADERS.contains(name)) {
            return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
        }
        return cached(name, value);
    }

    /** The one immutable header for a constant {@code name} and {@code value} (the recent table, then the cache). */
    private static Header cached(String name, String value) {
        int slot = (31 * name.hashCode() + value.hashCode()) & (RECENT.length - 1);
        Recent recent = RECENT[slot];
        if (recent != null && recent.name.equals(name) && recent.value.equals(value)) { // the same strings: identity
            return recent.header;
        }
        ConcurrentHashMap<String, Header> byValue = CACHE.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
        Header header = byValue.get(value);
        if (header == null) {
            header = new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
            if (byValue.size() < MAX_CACHED) {
                byValue.putIfAbsent(value, header);
            }
        }
        RECENT[slot] = new Recent(name, value, header);
        return header;
    }

    /**
     * Headers as strings, decoded when read ({@link LazyHeaderMap}); a header repeated by a plain
     * producer keeps its last value, as Kafka's lastHeader does.
     */
    public static Map<String, String> fromKafka(Headers headers) {
        Header[] all = headers.toArray();
        return all.length == 0 ? Map.of() : new LazyHeaderMap(all);
    }

    /**
     * A Kafka record's key as text: what {@code keys} reads from the bytes (for bytes that do not fit it,
     * {@value KeyFormat#RAW_PREFIX} and their base64), or null.
     */
    public static String key(byte[] key, KeyFormat keys) {
        return key == null ? null : keys.fromBytes(key);
    }

    /** Topics whose records' keys did not fit their subscription's key format, told once each (bounded). */
    private static final Set<String> UNFIT_KEYS_TOLD = ConcurrentHashMap.newKeySet();

    /**
     * Logs, once per topic, that a record's key bytes do not fit the key format (its key reads as
     * {@value KeyFormat#RAW_PREFIX} and base64, the record is delivered).
     */
    public static void keyDidNotFit(ConsumerRecord<byte[], byte[]> record, KeyFormat keys) {
        if (UNFIT_KEYS_TOLD.size() < MAX_CACHED && UNFIT_KEYS_TOLD.add(record.topic())) {
            log.warn("Record {}-{}@{} has a key of {} bytes, which is not a key of key format '{}' (property {}); it is "
                    + "delivered with the key as '{}' and base64 of the bytes (further such records of topic '{}' are not "
                    + "logged). Set {} of the subscription to the format its producers write (their key serializer's: "
                    + "string, long, integer, uuid, or bytes)", record.topic(), record.partition(), record.offset(),
                    record.key().length, keys.id(), KeyFormat.PROPERTY, KeyFormat.RAW_PREFIX, record.topic(),
                    KeyFormat.PROPERTY);
        }
    }
}
