package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import io.switchboard.rabbit.internal.mapping.AmqpHeaders;
import io.switchboard.spi.Capabilities;
import io.switchboard.testkit.EnvelopeBytes;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Bytes each envelope writes on RabbitMQ: header names and values, plus the {@code message-id} and
 * {@code content-type} properties and 8 for a {@code timestamp}; the README's table.
 */
class EnvelopeBytesRabbitTest {

    @Test
    @DisplayName("each envelope's header and property bytes on RabbitMQ; none sets only message-id and timestamp")
    void bytesPerEnvelope() {
        Capabilities rabbit = Capabilities.builder("rabbitmq").maxMessageSize(1 << 20).build();
        Map<String, Integer> bytes = EnvelopeBytes.table("rabbitmq", rabbit, record -> {
            AMQP.BasicProperties p = AmqpHeaders.properties(record, true);
            int sum = EnvelopeBytes.utf8(p.getMessageId()) + EnvelopeBytes.utf8(p.getContentType())
                    + (p.getTimestamp() == null ? 0 : 8);
            for (Map.Entry<String, Object> h : p.getHeaders().entrySet()) {
                sum += EnvelopeBytes.utf8(h.getKey()) + EnvelopeBytes.utf8(String.valueOf(h.getValue()));
            }
            return sum;
        });
        AMQP.BasicProperties none = AmqpHeaders.properties(EnvelopeBytes.record(rabbit, "none"), true);
        assertThat(none.getHeaders()).isEmpty();
        assertThat(none.getMessageId()).isNotNull();
        assertThat(none.getTimestamp()).isNotNull();
        assertThat(bytes.get("none")).isEqualTo(EnvelopeBytes.utf8(none.getMessageId()) + 8);
    }
}
