package io.switchboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.DeliveryContext;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Envelope and dispatch options on the in-memory broker. */
class EnvelopeOptionsTest {

    private static List<DeliveryContext> roundTrip(Switchboard sb, String destination) throws Exception {
        List<DeliveryContext> seen = new CopyOnWriteArrayList<>();
        Subscription s = sb.subscriber(destination, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, c) -> seen.add(c));
        s.ready().toCompletableFuture().get(10, TimeUnit.SECONDS);
        sb.publisher(destination, Codec.utf8()).build().publish("hello").toCompletableFuture().get(10, TimeUnit.SECONDS);
        org.awaitility.Awaitility.await("delivered").atMost(java.time.Duration.ofSeconds(10)).until(() -> !seen.isEmpty());
        assertThat(seen).as("delivered").hasSize(1);
        return seen;
    }

    @Test
    @DisplayName("without tracing a message carries no traceparent; stamp-traceparent=true stamps a random one")
    void traceparentOnlyWhenAsked() throws Exception {
        try (Switchboard plain = Switchboard.builder().broker("memory").property("memory.broker", "trace-off").build()) {
            assertThat(roundTrip(plain, "t1").get(0).traceparent()).isNull();
        }
        try (Switchboard stamped = Switchboard.builder().broker("memory").property("memory.broker", "trace-on")
                .property(DefaultPublisher.STAMP_TRACEPARENT, "true").build()) {
            assertThat(roundTrip(stamped, "t1").get(0).traceparent()).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        }
    }

    @Test
    @DisplayName("switchboard.consume.dispatch accepts auto and lanes, and names the value and the fix otherwise")
    void dispatchProperty() throws Exception {
        try (Switchboard lanes = Switchboard.builder().broker("memory").property("memory.broker", "dispatch-lanes")
                .property(Dispatch.PROPERTY, "lanes").build()) {
            assertThat(roundTrip(lanes, "d1")).hasSize(1);
        }
        try (Switchboard bad = Switchboard.builder().broker("memory").property("memory.broker", "dispatch-bad")
                .property(Dispatch.PROPERTY, "threads").build()) {
            assertThatThrownBy(() -> bad.subscriber("d1", Codec.utf8()).group("g").subscribe((m, c) -> { }))
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("switchboard.consume.dispatch").hasMessageContaining("'threads'")
                    .hasMessageContaining("'auto'").hasMessageContaining("'lanes'");
        }
    }
}
