package io.switchboard.kafka.internal;

import io.switchboard.spi.OutboundRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Maps records between Switchboard and Kafka. Envelope headers already carry the CloudEvents Kafka
 * binding's names ({@code ce_*}, {@code content-type}), so every header is written as it is, its
 * value in UTF-8; the key is UTF-8 bytes, so Kafka's default partitioner places a key exactly as a
 * plain producer with a {@code StringSerializer} would.
 */
final class KafkaRecords {

    private KafkaRecords() {}

    static ProducerRecord<byte[], byte[]> toKafka(OutboundRecord record) {
        Map<String, String> headers = record.headers();
        ArrayList<Header> kafkaHeaders = new ArrayList<>(headers.size());
        // forEach: core's envelope map hands its fields over without entry objects
        headers.forEach((name, value) -> kafkaHeaders.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8))));
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(record.destination(), null, null, key, record.payload(), new RecordHeaders(kafkaHeaders));
    }

    /** Headers as strings; a header repeated by a plain producer keeps its last value, as Kafka's lastHeader does. */
    static Map<String, String> fromKafka(Headers headers) {
        Map<String, String> result = new HashMap<>();
        for (Header header : headers) {
            byte[] value = header.value();
            result.put(header.key(), value == null ? "" : new String(value, StandardCharsets.UTF_8));
        }
        return result;
    }

    static String key(byte[] key) {
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }
}
