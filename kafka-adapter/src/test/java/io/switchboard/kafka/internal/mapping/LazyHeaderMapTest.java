package io.switchboard.kafka.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.kafka.internal.consume.KafkaInboundRecord;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Consumed Kafka headers as a lazily decoded map")
class LazyHeaderMapTest {

    private static RecordHeader h(String key, String value) {
        return new RecordHeader(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("reads like a HashMap of the headers: last value of a repeated key, empty for a null value")
    void behavesLikeAMap() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(h("ce_id", "id-1"));
        headers.add(h("tenant", "t1"));
        headers.add(h("tenant", "t2"));
        headers.add(h("empty", null));
        headers.add(h("name", "zoë"));
        Map<String, String> lazy = KafkaRecords.fromKafka(headers);

        assertThat(lazy.get("tenant")).isEqualTo("t2");
        assertThat(lazy.get("empty")).isEmpty();
        assertThat(lazy.get("name")).isEqualTo("zoë");
        assertThat(lazy.get("missing")).isNull();
        assertThat(lazy.containsKey("ce_id")).isTrue();
        assertThat(lazy.containsKey("missing")).isFalse();
        assertThat(lazy).hasSize(4);
        assertThat(new HashMap<>(lazy)).isEqualTo(Map.of("ce_id", "id-1", "tenant", "t2", "empty", "", "name", "zoë"));
        assertThat(lazy).isEqualTo(Map.of("ce_id", "id-1", "tenant", "t2", "empty", "", "name", "zoë"));
        assertThat(KafkaRecords.fromKafka(new RecordHeaders())).isEmpty();
    }

    @Test
    @DisplayName("many headers with repeated names (a foreign producer): still the last value of each, in record order")
    void manyHeaders() {
        RecordHeaders headers = new RecordHeaders();
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            String key = "h" + (i % 25);
            headers.add(h(key, "v" + i));
            expected.put(key, "v" + i);
        }
        Map<String, String> lazy = KafkaRecords.fromKafka(headers);

        assertThat(lazy).hasSize(25).isEqualTo(expected);
        assertThat(lazy.keySet()).containsExactly("h15", "h16", "h17", "h18", "h19", "h20", "h21", "h22", "h23", "h24",
                "h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11", "h12", "h13", "h14");
    }

    @Test
    @DisplayName("a consumed record's key is decoded when first read, once; no headers read as the shared empty map")
    void lazyKeyAndEmptyHeaders() {
        byte[] keyBytes = "kéy-1".getBytes(StandardCharsets.UTF_8);
        ConsumerRecord<byte[], byte[]> consumed =
                new ConsumerRecord<>("orders", 2, 40L, keyBytes, new byte[] {1});
        KafkaInboundRecord record =
                new KafkaInboundRecord(consumed, 1, (r, ack) -> { }, false);
        assertThat(record.key()).isEqualTo("kéy-1").isSameAs(record.key());
        assertThat(record.headers()).isSameAs(Map.of());
        ConsumerRecord<byte[], byte[]> keyless =
                new ConsumerRecord<>("orders", 2, 41L, null, new byte[] {1});
        assertThat(new KafkaInboundRecord(keyless, 1, (r, ack) -> { }, false).key())
                .isNull();
    }
}
