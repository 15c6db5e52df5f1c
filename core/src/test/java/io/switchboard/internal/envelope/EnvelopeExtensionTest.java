package io.switchboard.internal.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which {@code ce_} headers are CloudEvents extensions (application data) and which are the envelope's own. */
class EnvelopeExtensionTest {

    @Test
    @DisplayName("ce_<1-20 lowercase letters or digits> is an extension unless Switchboard writes that attribute")
    void extensionNames() {
        assertThat(Envelope.isExtension("ce_region")).isTrue();
        assertThat(Envelope.isExtension("ce_dataschema")).isTrue();
        assertThat(Envelope.isExtension("ce_a1")).isTrue();
        assertThat(Envelope.isExtension("ce_" + "x".repeat(20))).isTrue();
        assertThat(Envelope.isExtension("ce_" + "x".repeat(21))).isFalse();
        assertThat(Envelope.isExtension("ce_")).isFalse();
        assertThat(Envelope.isExtension("ce_Region")).isFalse();
        assertThat(Envelope.isExtension("ce_my-region")).isFalse();
        assertThat(Envelope.isExtension("region")).isFalse();
        for (String own : new String[] {"ce_specversion", "ce_id", "ce_source", "ce_type", "ce_time", "ce_subject",
                "ce_datacontenttype", "ce_attempt", "ce_traceparent", "ce_tracestate", "ce_sb"}) {
            assertThat(Envelope.isExtension(own)).as(own).isFalse();
            assertThat(Envelope.isEnvelopeHeader(own)).as(own).isTrue();
        }
        assertThat(Envelope.isEnvelopeHeader("ce_region")).isFalse();
        assertThat(Envelope.isEnvelopeHeader("ce_my-region")).isTrue();
    }

    @Test
    @DisplayName("an application may set an extension header but not an envelope attribute, and is told which names work")
    void applicationHeaders() {
        Message<String> m = Message.builder("p").header("ce_region", "eu").build();
        assertThat(m.headers()).containsEntry("ce_region", "eu");
        assertThatThrownBy(() -> Message.builder("p").header("ce_id", "x"))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("'ce_id'")
                .hasMessageContaining("CloudEvents extension");
    }

    @Test
    @DisplayName("received headers keep extensions and drop the envelope's own attributes")
    void userHeadersKeepExtensions() {
        Map<String, String> user = Envelopes.userHeaders(Map.of("ce_id", "1", "ce_type", "t", "ce_region", "eu",
                "content-type", "text/plain", "tenant", "a"));
        assertThat(user).containsOnly(Map.entry("ce_region", "eu"), Map.entry("tenant", "a"));
        assertThat(Envelopes.userHeaders(Map.of("ce_id", "1"))).isEmpty();
    }
}
