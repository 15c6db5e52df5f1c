package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.kafka.internal.mapping.KafkaRecords;
import io.switchboard.spi.Capabilities;
import io.switchboard.testkit.EnvelopeBytes;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Bytes of record headers (names and values) each envelope writes on Kafka; the README's table. */
class EnvelopeBytesKafkaTest {

    @Test
    @DisplayName("each envelope's header bytes on Kafka; none writes no header")
    void bytesPerEnvelope() {
        Capabilities kafka = Capabilities.builder("kafka").publishTimestamp(true).maxMessageSize(1 << 20).build();
        Map<String, Integer> bytes = EnvelopeBytes.table("kafka", kafka, record -> {
            int sum = 0;
            for (Header h : KafkaRecords.toKafka(record).headers()) {
                sum += EnvelopeBytes.utf8(h.key()) + (h.value() == null ? 0 : h.value().length);
            }
            return sum;
        });
        assertThat(bytes).containsEntry("cloudevents", 78).containsEntry("compact", 44).containsEntry("none", 0);
    }
}
