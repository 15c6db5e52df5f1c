package io.switchboard.examples.demo;

import io.switchboard.Message;
import io.switchboard.spring.SwitchboardOutbox;
import io.switchboard.spring.TransactionalPublisher;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: each order is written to the {@code demo_order} table and "order placed" to the outbox in one
 * transaction, keyed by customer, so both commit or neither does; the outbox's relay then sends the message on the
 * route of {@code orders} at that moment. The code does not know which broker carries it.
 */
@Service
public class OrderService {

    private final JdbcClient jdbc;
    private final TransactionalPublisher<Order> orders;

    /** Takes the orders publisher from the starter's outbox. */
    public OrderService(JdbcClient jdbc, SwitchboardOutbox outbox) {
        this.jdbc = jdbc;
        this.orders = outbox.publisher("orders", Order.class);
    }

    /**
     * Writes the order and its message in one transaction; the caller gets the answer once both are committed (a
     * failure throws, and neither is kept).
     */
    @Transactional
    public CompletionStage<Placed> place(String customerId, long amountCents) {
        Order order = new Order(UUID.randomUUID().toString(), customerId, amountCents);
        jdbc.sql("INSERT INTO demo_order (id, customer_id, amount_cents, placed_at) VALUES (?, ?, ?, ?)")
                .params(order.id(), customerId, amountCents, Timestamp.from(Instant.now())).update();
        String messageId = orders.publish(Message.of(customerId, order));
        return CompletableFuture.completedFuture(new Placed(order, messageId));
    }

    /**
     * An order written with its message.
     *
     * @param order the order
     * @param messageId the id its message carries on every broker
     */
    public record Placed(Order order, String messageId) {}
}
