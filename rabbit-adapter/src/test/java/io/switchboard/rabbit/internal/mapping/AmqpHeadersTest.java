package io.switchboard.rabbit.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import io.switchboard.Codec;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.testkit.CoreRecords;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The AMQP properties of an outbound record core made, whose time core holds as a number. */
class AmqpHeadersTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:07.123456Z");

    private static OutboundRecord coreRecord(String format, Message<String> message) {
        return CoreRecords.published(Capabilities.builder("rabbitmq").maxMessageSize(1 << 20).build(),
                Map.of("switchboard.envelope", format), Codec.utf8(), message);
    }

    @Test
    @DisplayName("the timestamp property is the envelope time's whole seconds, as when it was parsed from the header")
    void timestampFromMicros() {
        OutboundRecord record = coreRecord("cloudevents", Message.builder("p").timestamp(T).build());
        AMQP.BasicProperties fast = AmqpHeaders.properties(record, true);
        AMQP.BasicProperties parsed = AmqpHeaders.properties(
                new OutboundRecord(record.destination(), record.key(), Map.copyOf(record.headers()), record.payload(), 0), true);
        assertThat(fast.getTimestamp()).isEqualTo(new Date(T.getEpochSecond() * 1000)).isEqualTo(parsed.getTimestamp());
        assertThat(fast.getHeaders()).isEqualTo(parsed.getHeaders());
        assertThat(fast.getHeaders().get("cloudEvents_time")).isEqualTo("2026-01-01T00:00:07.123456Z");
        assertThat(fast.getMessageId()).isEqualTo(record.headers().get(Envelope.ID)).isEqualTo(parsed.getMessageId());
    }

    @Test
    @DisplayName("the compact envelope sets no timestamp property, though core holds its time")
    void compactHasNoTimestamp() {
        OutboundRecord record = coreRecord("compact", Message.of("p"));
        assertThat(record.timeMicros()).isNotEqualTo(OutboundRecord.NO_TIME);
        AMQP.BasicProperties properties = AmqpHeaders.properties(record, true);
        assertThat(properties.getTimestamp()).isNull();
        assertThat(properties.getMessageId()).isNull();
        assertThat(properties.getHeaders()).containsOnlyKeys("cloudEvents_sb");
    }

    @Test
    @DisplayName("a plain AMQP publisher's typed header values reach the handler as text")
    void typedHeadersAsText() {
        Map<String, Object> amqp = new java.util.LinkedHashMap<>();
        amqp.put("__TypeId__", "com.example.Order");
        amqp.put("int", 42);
        amqp.put("long", -7L);
        amqp.put("bool", true);
        amqp.put("double", 2.5d);
        amqp.put("decimal", new java.math.BigDecimal("1E+3"));
        amqp.put("bytes", "héllo".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        amqp.put("long-string", com.rabbitmq.client.impl.LongStringHelper.asLongString("text"));
        amqp.put("time", new Date(Instant.parse("2026-01-01T00:00:07Z").toEpochMilli()));
        Map<String, Object> table = new java.util.LinkedHashMap<>();
        table.put("n", 1);
        table.put("s", com.rabbitmq.client.impl.LongStringHelper.asLongString("a\"b"));
        table.put("list", java.util.List.of(true, "x"));
        amqp.put("table", table);
        amqp.put("x-death", java.util.List.of(Map.of("count", 1L)));
        Map<String, String> headers = AmqpHeaders.headers(new AMQP.BasicProperties.Builder().headers(amqp).build());
        assertThat(headers).containsEntry("__TypeId__", "com.example.Order").containsEntry("int", "42")
                .containsEntry("long", "-7").containsEntry("bool", "true").containsEntry("double", "2.5")
                .containsEntry("decimal", "1000").containsEntry("bytes", "héllo").containsEntry("long-string", "text")
                .containsEntry("time", "2026-01-01T00:00:07Z")
                .containsEntry("table", "{\"n\":1,\"s\":\"a\\\"b\",\"list\":[true,\"x\"]}")
                .doesNotContainKey("x-death");
    }
}
