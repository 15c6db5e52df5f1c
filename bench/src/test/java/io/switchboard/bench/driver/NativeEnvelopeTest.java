package io.switchboard.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NativeEnvelopeTest {

    @Test
    @DisplayName("native envelope runs carry the SDK's seven CloudEvents headers with values of the SDK's lengths, and the key as subject")
    void sameShapeAsTheSdks() {
        NativeEnvelope ce = new NativeEnvelope();
        long micros = Instant.parse("2026-11-23T12:00:01Z").toEpochMilli() * 1000 + 5;
        String[] first = ce.next(micros, null);
        String[] second = ce.next(micros + 1_000_000, "order-17");
        assertThat(NativeEnvelope.NAMES).hasSize(8).contains("ce_id", "ce_time", "ce_specversion", "ce_source", "ce_type");
        assertThat(first).hasSize(7);
        assertThat(second).hasSize(8);
        assertThat(NativeEnvelope.NAMES[7]).isEqualTo("ce_subject");
        assertThat(second[7]).isEqualTo("order-17");
        assertThat(NativeEnvelope.NAMES[NativeEnvelope.CONTENT_TYPE]).isEqualTo("content-type");
        assertThat(first[1]).hasSize(36).isNotEqualTo(second[1]); // a UUID's length, unique per message
        assertThat(first[4]).isEqualTo("2026-11-23T12:00:01.000000Z"); // the SDK's µs form: 27 characters
        assertThat(second[4]).isEqualTo("2026-11-23T12:00:02.000000Z");
    }
}
