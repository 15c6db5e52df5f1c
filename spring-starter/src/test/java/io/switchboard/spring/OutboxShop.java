package io.switchboard.spring;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;

/**
 * The application the outbox's tests run, as a user writes it: a service that writes an order to its table and
 * publishes "order placed" ({@code ${app.topic}}) through the outbox in one {@code @Transactional} method, and a
 * listener of those messages. The order table is {@code ${app.order-table:shop_order}}.
 */
public final class OutboxShop {

    private OutboxShop() {}

    /** The beans. */
    @Configuration(proxyBeanMethods = false)
    public static class Beans {
        @Bean
        TransactionalPublisher<String> orderPlaced(SwitchboardOutbox outbox, @Value("${app.topic}") String topic) {
            return outbox.publisher(topic, String.class);
        }

        @Bean
        Orders orders(JdbcClient jdbc, TransactionalPublisher<String> orderPlaced,
                @Value("${app.order-table:shop_order}") String table) {
            return new Orders(jdbc, orderPlaced, table);
        }

        @Bean
        Billing billing() {
            return new Billing();
        }
    }

    /** The service. */
    public static class Orders {
        final JdbcClient jdbc;
        final TransactionalPublisher<String> placed;
        final String table;

        Orders(JdbcClient jdbc, TransactionalPublisher<String> placed, String table) {
            this.jdbc = jdbc;
            this.placed = placed;
            this.table = table;
            jdbc.sql("CREATE TABLE IF NOT EXISTS " + table + " (id VARCHAR(64) PRIMARY KEY, customer VARCHAR(64))").update();
        }

        /**
         * Writes the order and its event; {@code fail} throws after both, as a refused payment would.
         *
         * @return the message's id
         */
        @Transactional
        public String place(String customer, String order, boolean fail) {
            jdbc.sql("INSERT INTO " + table + " (id, customer) VALUES (?, ?)").params(order, customer).update();
            String id = placed.publish(Message.of(customer, order));
            if (fail) {
                throw new IllegalStateException("payment refused for " + order);
            }
            return id;
        }

        /** Publishes in a read-only transaction: refused. */
        @Transactional(readOnly = true)
        public String placeReadOnly(String customer, String order) {
            return placed.publish(Message.of(customer, order));
        }

        /** No @Transactional: the mistake the outbox refuses. */
        public String placeWithoutTransaction(String customer, String order) {
            return placed.publish(Message.of(customer, order));
        }

        /** {@return the customer's orders in the table} */
        public long rows(String customer) {
            return jdbc.sql("SELECT count(*) FROM " + table + " WHERE customer = ?").param(customer).query(Long.class).single();
        }
    }

    /** Receives "order placed" as {@code <order>@<instance>/<message id>}. */
    public static class Billing {
        /** What was received, in order. */
        public final List<String> received = new CopyOnWriteArrayList<>();

        @SwitchboardListener(destination = "${app.topic}", group = "billing")
        void on(Message<String> message, DeliveryContext context) {
            received.add(message.payload() + "@" + context.instance() + "/" + message.id());
        }
    }
}
