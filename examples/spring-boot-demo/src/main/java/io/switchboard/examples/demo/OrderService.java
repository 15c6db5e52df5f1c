package io.switchboard.examples.demo;

import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.spring.Publishers;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.springframework.stereotype.Service;

/** Places orders: one publish per order, keyed by customer. The code does not know which broker carries it. */
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
