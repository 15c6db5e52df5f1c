package io.switchboard.kafka.internal.consume;

import io.switchboard.kafka.internal.mapping.KafkaRecords;
import io.switchboard.kafka.internal.mapping.LazyHeaderMap;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.SettledOnce;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A Kafka record handed to core. Acking only flips a flag that the poll thread reads when it
 * computes the offsets to commit; nacking also queues the record for the poll thread, which
 * rewinds the partition. The first ack or nack wins. Its attributes are read from the consumer record, not copied.
 */
public final class KafkaInboundRecord extends SettledOnce {

    private static final byte[] EMPTY = new byte[0];

    static final int ACKED = 1;
    static final int NACKED = 2;
    /** Committed to Kafka before delivery (at-most-once): the first ack or nack only releases the in-flight slot. */
    static final int PRE_ACKED = 3;

    private final ConsumerRecord<byte[], byte[]> record;
    private final Settlement owner;
    private final int deliveryCount;
    /** How the key's bytes read as text. */
    private final KeyFormat keys;
    private Map<String, String> headers;
    /** The key's text once read; null before, or for a record without a key. */
    private String key;
    /** Poll thread only: the record no longer counts for commits (its partition was rewound or revoked). */
    boolean stale;
    /** Poll thread only: records after this one that the filter dropped, up to this offset (exclusive); 0 for none. */
    long skipThrough;

    /** A record whose key is UTF-8 text (key format {@code string}). */
    public KafkaInboundRecord(ConsumerRecord<byte[], byte[]> record, int deliveryCount, Settlement owner, boolean settled) {
        this(record, deliveryCount, owner, settled, KeyFormat.STRING);
    }

    /** A record whose key's bytes {@code keys} reads as text. */
    public KafkaInboundRecord(ConsumerRecord<byte[], byte[]> record, int deliveryCount, Settlement owner, boolean settled,
            KeyFormat keys) {
        super(settled ? PRE_ACKED : PENDING);
        this.record = record;
        this.owner = owner;
        this.deliveryCount = deliveryCount;
        this.keys = keys;
    }

    @Override
    public String destination() {
        return record.topic();
    }

    @Override
    public int partition() {
        return record.partition();
    }

    @Override
    public long offset() {
        return record.offset();
    }

    @Override
    public byte[] payload() {
        byte[] value = record.value();
        return value == null ? EMPTY : value;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public long brokerTimestamp() {
        return record.timestamp();
    }

    /**
     * Decodes the key when first read: a handler that reads only the payload, the usual case, never turns it into
     * text. Two threads reading it at once decode it twice, to equal strings. Key bytes that do not fit the
     * subscription's key format read as {@value KeyFormat#RAW_PREFIX} and their base64 (logged once per topic), which
     * published again (a dead letter, a retry) writes the same bytes.
     */
    @Override
    public String key() {
        String k = key;
        if (k == null && record.key() != null) {
            k = KafkaRecords.key(record.key(), keys);
            if (keys.isRaw(k)) {
                KafkaRecords.keyDidNotFit(record, keys);
            }
            key = k;
        }
        return k;
    }

    /** Decodes the headers when first read ({@link LazyHeaderMap}), on the thread handling the record. */
    @Override
    public Map<String, String> headers() {
        Map<String, String> result = headers;
        if (result == null) {
            result = KafkaRecords.fromKafka(record.headers());
            headers = result;
        }
        return result;
    }

    @Override
    public void ack() {
        if (settle(PENDING, ACKED) || settle(PRE_ACKED, ACKED)) {
            owner.settled(this, true);
        }
    }

    @Override
    public void nack() {
        if (settle(PENDING, NACKED)) {
            owner.settled(this, false);
        } else if (settle(PRE_ACKED, ACKED)) {
            owner.settled(this, true);
        }
    }

    @Override
    public String toString() {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    /** Told when core settles a record. */
    public interface Settlement {
        /** Called once per record, from any thread; never blocks. */
        void settled(KafkaInboundRecord record, boolean ack);
    }
}
