package io.switchboard.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SendStampTest {

    @Test
    @DisplayName("the send time travels in a copy of the payload's first 8 bytes; the size stays as stated")
    void roundTrip() {
        byte[] template = new byte[512];
        template[100] = 42;
        long micros = 1_795_000_000_123_456L;
        byte[] payload = SendStamp.stamped(template, micros);
        assertThat(payload).hasSize(512).isNotSameAs(template);
        assertThat(payload[100]).isEqualTo((byte) 42);
        assertThat(template[0]).isZero(); // the template is not written
        assertThat(SendStamp.read(payload)).isEqualTo(micros);
        assertThat(SendStamp.read(SendStamp.stamped(new byte[8], -1L))).isEqualTo(-1L);
    }

    @Test
    @DisplayName("a payload shorter than 8 bytes is refused")
    void tooShort() {
        assertThatThrownBy(() -> SendStamp.stamped(new byte[7], 1L)).hasMessageContaining("at least 8 bytes");
    }
}
