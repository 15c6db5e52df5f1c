package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.stereotype.Service;

/** README.md's Spring Boot quickstart publisher (its java block is this tagged region), run on the in-memory broker. */
@DisplayName("The README's quickstart service publishes through the starter's Publishers")
class QuickstartServiceTest {

    /** The payload of the quickstart. */
    public record Order(String id, String customerId, long amountCents) {}

    // tag::spring-publisher[]
    @Service
    public class OrderService {

        private final Publisher<Order> orders;

        /** Takes the orders publisher from the starter's registry. */
        public OrderService(Publishers publishers) {
            this.orders = publishers.get("orders", Order.class);
        }

        /** Publishes an order. */
        public CompletionStage<PublishReceipt> place(String customerId, long amountCents) {
            Order order = new Order(UUID.randomUUID().toString(), customerId, amountCents);
            return orders.publish(Message.of(customerId, order));
        }
    }
    // end::spring-publisher[]

    @Test
    @DisplayName("an order placed is acknowledged by the broker")
    void placesAnOrder() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
                .run(context -> {
                    OrderService service = new OrderService(context.getBean(Publishers.class));
                    PublishReceipt receipt = service.place("c1", 1250).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    assertThat(receipt.instance()).isEqualTo("memory");
                });
    }
}
