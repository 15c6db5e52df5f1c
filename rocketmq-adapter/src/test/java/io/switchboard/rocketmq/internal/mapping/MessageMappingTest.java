package io.switchboard.rocketmq.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.testkit.CoreRecords;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Envelope headers on RocketMQ")
class MessageMappingTest {

    private static final byte[] BODY = "x".getBytes(StandardCharsets.UTF_8);

    @Test
    @DisplayName("follow the CloudEvents RocketMQ binding and come back under Switchboard's names")
    void roundTrip() {
        Map<String, String> headers = Map.of(Envelope.ID, "id-1", Envelope.CONTENT_TYPE, "text/plain",
                Envelope.TIME, "2026-01-01T00:00:00.000001Z", "tenant", "acme", "empty", "");
        Message message = MessageMapping.toMessage(new OutboundRecord("orders", "k-1", headers, BODY, 0), null, 0);

        assertThat(message.getProperties()).containsEntry("CE_id", "id-1").containsEntry("CE_contenttype", "text/plain")
                .containsEntry("CE_time", "2026-01-01T00:00:00.000001Z").containsEntry("tenant", "acme")
                .containsEntry("KEYS", "k-1").doesNotContainKey(Envelope.ID);
        MessageAccessor.putProperty(message, "UNIQ_KEY", "native-id");
        assertThat(MessageMapping.headers(message)).isEqualTo(headers);
    }

    @Test
    @DisplayName("of a message with RocketMQ's own properties only are empty")
    void onlySystemProperties() {
        Message message = MessageMapping.toMessage(new OutboundRecord("orders", "k-1", Map.of(), BODY, 0), null, 0);
        MessageAccessor.putProperty(message, "UNIQ_KEY", "native-id");
        MessageAccessor.putProperty(message, "MIN_OFFSET", "0");
        assertThat(message.getProperties()).containsKeys("KEYS", "UNIQ_KEY", "MIN_OFFSET");
        assertThat(MessageMapping.headers(message)).isEmpty();
        MessageAccessor.putProperty(message, "tenant", "acme");
        assertThat(MessageMapping.headers(message)).isEqualTo(Map.of("tenant", "acme"));
    }

    @Test
    @DisplayName("are found whether a message's properties are only the usual system ones, other system ones, or mixed")
    void usualAndOtherSystemProperties() {
        Message usual = new Message("orders", BODY);
        for (String name : new String[] {"UNIQ_KEY", "KEYS", "MIN_OFFSET", "MAX_OFFSET", "TAGS", "CONSUME_START_TIME",
            "RETRY_TOPIC"}) {
            MessageAccessor.putProperty(usual, name, "v");
        }
        assertThat(usual.getProperties()).hasSize(8); // with WAIT, which every new Message has
        assertThat(MessageMapping.headers(usual)).isEmpty();
        MessageAccessor.putProperty(usual, "REAL_QID", "3"); // a ninth: more than the usual ones, so each is checked
        assertThat(MessageMapping.headers(usual)).isEmpty();

        Message other = new Message("orders", BODY);
        MessageAccessor.putProperty(other, "DELAY", "2"); // RocketMQ's, not among the usual
        MessageAccessor.putProperty(other, "UNIQ_KEY", "u");
        assertThat(MessageMapping.headers(other)).isEmpty();
        MessageAccessor.putProperty(other, "CE_id", "id-9");
        assertThat(MessageMapping.headers(other)).isEqualTo(Map.of(Envelope.ID, "id-9"));
    }

    @Test
    @DisplayName("as core reads a received message: looked up by name without a walk, the same map as the walk when iterated")
    void receivedHeadersAsTheWalkGivesThem() {
        Map<String, String> headers = Map.of(Envelope.ID, "id-1", Envelope.CONTENT_TYPE, "text/plain",
                Envelope.TIME, "2026-01-01T00:00:00.000001Z", "ce_tier", "gold", "tenant", "acme");
        Message message = MessageMapping.toMessage(new OutboundRecord("orders", "k-1", headers, BODY, 0), null, 0);
        MessageAccessor.putProperty(message, "UNIQ_KEY", "native-id");
        MessageAccessor.putProperty(message, "DELAY", "2");
        MessageAccessor.putProperty(message, "CE_extra", "x"); // a plain producer's CE_ property: header ce_extra

        Map<String, String> received = MessageMapping.receivedHeaders(message);
        Map<String, String> walked = MessageMapping.headers(message);
        assertThat(received.getClass()).as("a view, not the walked map").isNotEqualTo(walked.getClass());
        for (String name : new String[] {Envelope.ID, Envelope.CONTENT_TYPE, Envelope.TIME, "ce_tier", "ce_extra", "tenant",
            "CE_extra", "CE_id", "UNIQ_KEY", "DELAY", "KEYS", Envelope.COMPACT, "absent"}) {
            assertThat(received.get(name)).as(name).isEqualTo(walked.get(name));
            assertThat(received.containsKey(name)).as(name).isEqualTo(walked.containsKey(name));
        }
        assertThat(received.isEmpty()).isFalse();
        assertThat(received).isEqualTo(walked).hasSize(walked.size());
        assertThat(received.get(Envelope.TIME)).as("read again after the walk").isEqualTo("2026-01-01T00:00:00.000001Z");

        Message plain = new Message("orders", BODY);
        MessageAccessor.putProperty(plain, "tenant", "acme");
        assertThat(MessageMapping.receivedHeaders(plain)).as("no envelope id: the walked map").isEqualTo(Map.of("tenant", "acme"));
    }

    @Test
    @DisplayName("of a record core made (id and time held as numbers) are its header map's text")
    void coreRecord() {
        OutboundRecord record = CoreRecords.published(Capabilities.builder("rocketmq").maxMessageSize(1 << 20).build(),
                Map.of(), Codec.utf8(), io.switchboard.Message.builder("p").key("k-1").header("tenant", "acme").build());
        Message message = MessageMapping.toMessage(record, null, 0);
        assertThat(record.hasIdBits()).isTrue();
        assertThat(MessageMapping.headers(message)).isEqualTo(Map.copyOf(record.headers()))
                .containsKeys(Envelope.ID, Envelope.TIME, "tenant");
    }

    @Test
    @DisplayName("take the tag from the message header before the publisher's, and the delivery time")
    void tagAndDeliveryTime() {
        Message fromPublisher = MessageMapping.toMessage(new OutboundRecord("orders", null, Map.of(), BODY, 0), "TagA", 0);
        Message fromHeader = MessageMapping.toMessage(
                new OutboundRecord("orders", null, Map.of("rocketmq.tag", "TagB"), BODY, 0), "TagA", 5_000);

        assertThat(fromPublisher.getTags()).isEqualTo("TagA");
        assertThat(fromHeader.getTags()).isEqualTo("TagB");
        assertThat(fromHeader.getDeliverTimeMs()).isEqualTo(5_000);
        assertThat(fromPublisher.getDeliverTimeMs()).isZero();
    }

    @Test
    @DisplayName("refuse headers RocketMQ keeps for itself, naming them")
    void reservedNames() {
        assertThatThrownBy(() -> MessageMapping.toMessage(
                new OutboundRecord("orders", null, Map.of("KEYS", "a"), BODY, 0), null, 0))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("'KEYS'").hasMessageContaining("orders");
        assertThatThrownBy(() -> MessageMapping.toMessage(
                new OutboundRecord("orders", null, Map.of("CE_custom", "a"), BODY, 0), null, 0))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("'CE_custom'");
    }
}
