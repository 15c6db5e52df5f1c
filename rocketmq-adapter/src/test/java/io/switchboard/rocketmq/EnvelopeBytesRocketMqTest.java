package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.rocketmq.internal.mapping.MessageMapping;
import io.switchboard.spi.Capabilities;
import io.switchboard.testkit.EnvelopeBytes;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Bytes of message properties (names and values) each envelope writes on RocketMQ, before the
 * client adds its own ({@code UNIQ_KEY}, 40 bytes, on every message), its system properties
 * ({@code WAIT}) included; the README's table.
 */
class EnvelopeBytesRocketMqTest {

    @Test
    @DisplayName("each envelope's property bytes on RocketMQ; none writes no property")
    void bytesPerEnvelope() {
        Capabilities rocketmq = Capabilities.builder("rocketmq").maxMessageSize(1 << 20).build();
        Map<String, Integer> bytes = EnvelopeBytes.table("rocketmq", rocketmq, record -> {
            int sum = 0;
            for (Map.Entry<String, String> p : MessageMapping.toMessage(record, null, 0).getProperties().entrySet()) {
                sum += EnvelopeBytes.utf8(p.getKey()) + EnvelopeBytes.utf8(p.getValue());
            }
            return sum;
        });
        System.out.println("envelope bytes per message on rocketmq: " + bytes); // RocketMQ takes over SLF4J here
        Map<String, String> none = MessageMapping.toMessage(EnvelopeBytes.record(rocketmq, "none"), null, 0).getProperties();
        assertThat(none.keySet()).as("only the client's own properties").allSatisfy(name -> assertThat(name).doesNotStartWith("CE_"));
        assertThat(bytes.get("none")).isEqualTo(none.entrySet().stream()
                .mapToInt(e -> EnvelopeBytes.utf8(e.getKey()) + EnvelopeBytes.utf8(e.getValue())).sum());
    }
}
