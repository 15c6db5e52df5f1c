package io.switchboard.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NativeEnvelopeTest {

    @Test
    @DisplayName("native envelope runs carry the default envelope's attributes with values of the SDK's lengths")
    void sameShapeAsTheSdks() {
        NativeEnvelope ce = new NativeEnvelope();
        String first = ce.nextId();
        String second = ce.nextId();
        assertThat(first).hasSize(22).isNotEqualTo(second); // the default id's length, unique per message
        assertThat(second).hasSize(22);
        long micros = Instant.parse("2026-11-23T12:00:01Z").toEpochMilli() * 1000 + 5;
        assertThat(ce.time(micros)).isEqualTo("2026-11-23T12:00:01.000000Z"); // the SDK's µs form: 27 characters
        assertThat(ce.time(micros + 1_000_000)).isEqualTo("2026-11-23T12:00:02.000000Z");
        assertThat(NativeEnvelope.TYPE).isEqualTo("message");
        assertThat(NativeEnvelope.SOURCE).isEqualTo("switchboard");
    }

    @Test
    @DisplayName("on Kafka the native envelope's headers take as many bytes as the SDK's default for bytes (78: no time, no subject, no content type)")
    void kafkaHeaderBytes() {
        int bytes = 0;
        for (org.apache.kafka.common.header.Header h : KafkaNativeDriver.envelopeHeaders(new NativeEnvelope())) {
            bytes += h.key().length() + h.value().length;
        }
        assertThat(bytes).isEqualTo(78);
    }
}
