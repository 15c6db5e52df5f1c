package io.switchboard.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
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
}
