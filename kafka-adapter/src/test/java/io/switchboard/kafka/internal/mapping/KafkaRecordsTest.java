package io.switchboard.kafka.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.testkit.CoreRecords;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Kafka record of an outbound record core made: the id and time written as bytes from their numbers. */
class KafkaRecordsTest {

    /** The record core hands an adapter with Kafka's capabilities for {@code message}, in envelope {@code format}. */
    private static OutboundRecord coreRecord(String format, Message<byte[]> message) {
        Capabilities kafka = Capabilities.builder("kafka").publishTimestamp(true).maxMessageSize(1 << 20).build();
        return CoreRecords.published(kafka, Map.of("switchboard.envelope", format), Codec.bytes(), message);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cloudevents", "cloudevents-full", "compact"})
    @DisplayName("writes every header as the UTF-8 bytes of the header map's text, in its order")
    void sameBytes(String format) {
        Message<byte[]> message = Message.builder(new byte[] {1}).key("k-1").header("tenant", "acme").build();
        OutboundRecord record = coreRecord(format, message);
        ProducerRecord<byte[], byte[]> kafka = KafkaRecords.toKafka(record);
        Map<String, String> written = new LinkedHashMap<>();
        for (Header h : kafka.headers()) {
            written.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        Map<String, String> text = new LinkedHashMap<>();
        record.headers().forEach(text::put);
        assertThat(written).containsExactlyEntriesOf(text);
        assertThat(new String(kafka.key(), StandardCharsets.UTF_8)).isEqualTo("k-1");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cloudevents"})
    @DisplayName("the lean default for opaque bytes is 78 bytes of headers: specversion, id, source, type")
    void leanSize(String format) {
        ProducerRecord<byte[], byte[]> kafka = KafkaRecords.toKafka(coreRecord(format, Message.of(new byte[] {1})));
        int bytes = 0;
        List<String> names = new ArrayList<>();
        for (Header h : kafka.headers()) {
            names.add(h.key());
            bytes += h.key().length() + h.value().length;
        }
        assertThat(names).containsExactly(Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE);
        assertThat(bytes).isEqualTo(78);
        // core hands the envelope's constants over as such: the same header objects on the next record, a new id
        Header[] next = KafkaRecords.toKafka(coreRecord(format, Message.of(new byte[] {2}))).headers().toArray();
        Header[] first = kafka.headers().toArray();
        assertThat(next[0]).isSameAs(first[0]);
        assertThat(next[2]).isSameAs(first[2]);
        assertThat(next[3]).isSameAs(first[3]);
        assertThat(next[1]).isNotSameAs(first[1]);
        assertThat(next[1].value()).isNotEqualTo(first[1].value());
    }

    @org.junit.jupiter.api.Test
    @DisplayName("envelope none without application headers: a record without headers, still writable (delay topics add theirs)")
    void noneWritesNoHeader() {
        ProducerRecord<byte[], byte[]> kafka = KafkaRecords.toKafka(coreRecord("none", Message.builder(new byte[] {1})
                .key("k-1").build()), "delayed", KeyFormat.STRING);
        assertThat(kafka.headers().toArray()).isEmpty();
        assertThat(kafka.topic()).isEqualTo("delayed");
        kafka.headers().add("due", new byte[] {2});
        assertThat(kafka.headers().lastHeader("due").value()).containsExactly(2);
        ProducerRecord<byte[], byte[]> tenant = KafkaRecords.toKafka(coreRecord("none", Message.builder(new byte[] {1})
                .header("tenant", "acme").build()));
        assertThat(tenant.headers().toArray()).hasSize(1);
        assertThat(new String(tenant.headers().lastHeader("tenant").value(), StandardCharsets.UTF_8)).isEqualTo("acme");
    }

    @org.junit.jupiter.api.Test
    @DisplayName("a constant header is one object for every record with that name and value, and never another value's")
    void constantHeadersShared() {
        String source = new String("orders-service"); // not interned: a value as configuration hands it over
        String other = new String("billing-service");
        Header first = KafkaRecords.header(Envelope.SOURCE, source);
        assertThat(KafkaRecords.header(Envelope.SOURCE, source)).isSameAs(first);
        assertThat(KafkaRecords.header(Envelope.SOURCE, new String("orders-service"))).isSameAs(first); // equal text
        Header second = KafkaRecords.header(Envelope.SOURCE, other);
        assertThat(new String(second.value(), StandardCharsets.UTF_8)).isEqualTo("billing-service");
        assertThat(new String(KafkaRecords.header(Envelope.SOURCE, source).value(), StandardCharsets.UTF_8))
                .isEqualTo("orders-service");
        assertThat(KafkaRecords.header(Envelope.TYPE, source).key()).isEqualTo(Envelope.TYPE); // same value, other name
        Header perMessage = KafkaRecords.header("tenant", "acme");
        assertThat(KafkaRecords.header("tenant", "acme")).isNotSameAs(perMessage);
    }
}
