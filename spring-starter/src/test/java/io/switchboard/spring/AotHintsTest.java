package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.kafka.KafkaAdapterFactory;
import io.switchboard.rabbit.RabbitAdapterFactory;
import io.switchboard.spring.aot.SwitchboardRuntimeHints;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

/** The runtime hints Spring AOT writes for Switchboard (a native image needs them; a JVM in AOT mode does not). */
class AotHintsTest {

    record Line(String sku, int quantity) {}

    record Order(String id, List<Line> lines) {}

    record Refund(String orderId, long cents) {}

    record Reading(String sensor, double value) {}

    record Invoice(String id) {}

    record Quote(String sku, long cents) {}

    static class Billing {
        @SwitchboardListener(destination = "orders", group = "billing")
        void bill(Order order, DeliveryContext context) {}

        @SwitchboardListener(destination = "refunds", group = "billing")
        void refund(Message<Refund> refund) {}

        @SwitchboardListener(destination = "audit", group = "billing")
        void audit(String text) {}

        @SwitchboardListener(destination = "readings", group = "store")
        void store(List<Reading> readings) {}

        @SwitchboardListener(destination = "invoices", group = "billing")
        void invoices(io.switchboard.Batch<Invoice> invoices) {}

        @SwitchboardListener(destination = "quotes", group = "pricing")
        Quote quote(String sku) {
            return new Quote(sku, 1);
        }

        void notAListener(Long ignored) {}
    }

    @Test
    @DisplayName("the adapters ServiceLoader finds keep their service file and public constructors")
    void adaptersFoundThroughServiceLoader() {
        RuntimeHints hints = new RuntimeHints();
        new SwitchboardRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/services/io.switchboard.spi.BrokerAdapterFactory"))
                .accepts(hints);
        for (Class<?> factory : new Class<?>[] {KafkaAdapterFactory.class, RabbitAdapterFactory.class}) {
            assertThat(RuntimeHintsPredicates.reflection().onType(factory)
                    .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).as(factory.getName()).accepts(hints);
        }
    }

    @Test
    @DisplayName("@SwitchboardListener methods may be invoked and their payload types bound, nested types, batch payloads and replies included")
    void listenerMethodsAndPayloads() throws Exception {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Billing.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Billing.class.getDeclaredMethod("bill", Order.class,
                DeliveryContext.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Billing.class.getDeclaredMethod("refund",
                Message.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Billing.class.getDeclaredMethod("notAListener",
                Long.class))).rejects(hints);
        for (Class<?> payload : new Class<?>[] {Order.class, Line.class, Refund.class, Reading.class, Invoice.class,
                Quote.class}) {
            assertThat(hints.reflection().getTypeHint(TypeReference.of(payload))).as(payload.getName()).isNotNull();
            assertThat(RuntimeHintsPredicates.reflection().onType(payload).withMemberCategory(
                    MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(payload.getName()).accepts(hints);
        }
        assertThat(hints.reflection().getTypeHint(DeliveryContext.class)).as("the context is not a payload").isNull();
    }
}
