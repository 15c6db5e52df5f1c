package io.switchboard;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a batch subscription refuses, naming the value and the fix; its behaviour is the contract's "Batch handlers". */
@DisplayName("Batch subscriptions refuse what they cannot keep")
@Timeout(30)
class BatchSettingsTest {

    private final Switchboard sb = Switchboard.builder().broker("memory")
            .property("memory.broker", "batch-settings-" + UUID.randomUUID()).build();

    @AfterEach
    void close() {
        sb.close();
    }

    @Test
    @DisplayName("exactly-once, retries through the broker, and a batch above maxInFlight are refused")
    void refusals() {
        BatchHandler<String> handler = batch -> { };
        assertThatThrownBy(() -> sb.subscriber("orders", Codec.utf8()).delivery(Delivery.EXACTLY_ONCE).subscribeBatch(handler))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'orders'").hasMessageContaining("exactly-once");
        assertThatThrownBy(() -> sb.subscriber("orders", Codec.utf8())
                .retry(RetryPolicy.fixed(3, Duration.ofSeconds(1)).viaBroker(Duration.ofMillis(500))).subscribeBatch(handler))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("viaBroker");
        assertThatThrownBy(() -> sb.subscriber("orders", Codec.utf8()).batchSize(500).maxInFlight(256).subscribeBatch(handler))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("batchSize 500")
                .hasMessageContaining("maxInFlight 256");
        assertThatThrownBy(() -> sb.subscriber("orders", Codec.utf8()).batchSize(0))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("was 0");
        assertThatThrownBy(() -> sb.subscriber("orders", Codec.utf8()).batchWait(Duration.ofMillis(-1)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("PT-0.001S");
    }

    @Test
    @DisplayName("a Switchboard routing between instances refuses a batch subscription, naming them")
    void routedRefused() {
        String run = UUID.randomUUID().toString();
        try (Switchboard routed = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run)).build()) {
            assertThatThrownBy(() -> routed.subscriber("orders", Codec.utf8()).subscribeBatch(batch -> { }))
                    .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("[a, b]");
        }
    }
}
