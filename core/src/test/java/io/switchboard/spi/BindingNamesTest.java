package io.switchboard.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Envelope;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BindingNamesTest {

    private final BindingNames amqp = new BindingNames("cloudEvents_", Map.of(), name -> false);
    private final BindingNames rocketmq = new BindingNames("CE_", Map.of(Envelope.CONTENT_TYPE, "CE_contenttype"),
            "CE_id"::equals);

    @Test
    void mapsTheEnvelopeAttributesBothWays() {
        for (String attribute : BindingNames.ATTRIBUTES) {
            String binding = amqp.toBinding(attribute);
            assertThat(binding).isEqualTo("cloudEvents_" + attribute.substring(Envelope.PREFIX.length()));
            assertThat(amqp.fromBinding(binding)).isEqualTo(attribute);
            assertThat(amqp.knownFromBinding(binding)).isEqualTo(attribute);
        }
        assertThat(rocketmq.toBinding(Envelope.CONTENT_TYPE)).isEqualTo("CE_contenttype");
        assertThat(rocketmq.fromBinding("CE_contenttype")).isEqualTo(Envelope.CONTENT_TYPE);
    }

    @Test
    void swapsThePrefixOfExtensionsAndLeavesOtherHeadersAlone() {
        assertThat(amqp.toBinding("ce_tenant")).isEqualTo("cloudEvents_tenant");
        assertThat(amqp.fromBinding("cloudEvents_tenant")).isEqualTo("ce_tenant");
        assertThat(amqp.knownFromBinding("cloudEvents_tenant")).isNull();
        assertThat(amqp.toBinding("x-app")).isEqualTo("x-app");
        assertThat(amqp.fromBinding("x-app")).isEqualTo("x-app");
    }

    @Test
    void leavesReservedNamesOutOfTheTable() {
        assertThat(rocketmq.knownFromBinding("CE_id")).isNull();
        assertThat(rocketmq.knownFromBinding("CE_source")).isEqualTo(Envelope.SOURCE);
        assertThat(rocketmq.toBinding(Envelope.ID)).isEqualTo("CE_id");
    }

    @Test
    void findsATableNameWithoutThePrefixAndMissesOtherUnprefixedNames() {
        BindingNames mixed = new BindingNames("CE_", Map.of(Envelope.CONTENT_TYPE, "contentType"), name -> false);
        assertThat(mixed.knownFromBinding("contentType")).isEqualTo(Envelope.CONTENT_TYPE);
        assertThat(mixed.knownFromBinding("CE_source")).isEqualTo(Envelope.SOURCE);
        assertThat(mixed.fromBinding("contentType")).isEqualTo(Envelope.CONTENT_TYPE);
        assertThat(rocketmq.fromBinding("UNIQ_KEY")).isEqualTo("UNIQ_KEY");
        assertThat(rocketmq.knownFromBinding("UNIQ_KEY")).isNull();
        assertThat(amqp.knownFromBinding("x-app")).isNull();
    }
}
