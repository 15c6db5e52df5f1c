package io.switchboard.spring;

import io.switchboard.Message;
import io.switchboard.outbox.Outbox;
import java.time.Duration;

/**
 * The transactional outbox in a Spring application ({@code switchboard.outbox.enabled=true} and a {@code DataSource}):
 * {@code publish} writes the message to the outbox table on the connection of the current Spring-managed transaction
 * (the one {@code DataSourceTransactionManager} or {@code JpaTransactionManager} holds inside {@code @Transactional}),
 * so it commits with the application's own writes, or not at all. The relay, started and stopped with the
 * application context, sends the committed messages through the Switchboard's routes; at least once, with the id
 * {@code publish} returned.
 *
 * <pre>{@code
 * @Service
 * class Orders {
 *     private final JdbcClient jdbc;
 *     private final TransactionalPublisher<OrderPlaced> placed;
 *
 *     Orders(JdbcClient jdbc, SwitchboardOutbox outbox) {
 *         this.jdbc = jdbc;
 *         this.placed = outbox.publisher("orders", OrderPlaced.class);
 *     }
 *
 *     @Transactional
 *     public void place(Order order) {
 *         jdbc.sql("INSERT INTO orders (id, customer, cents) VALUES (?, ?, ?)")
 *                 .params(order.id(), order.customer(), order.cents()).update();
 *         placed.publish(Message.of(order.customer(), new OrderPlaced(order.id())));   // commits with the INSERT
 *     }
 * }
 * }</pre>
 *
 * <p>Outside a transaction {@code publish} refuses with an {@link io.switchboard.outbox.OutboxException} naming the
 * fix ({@code @Transactional}, or {@code TransactionTemplate}), and writes nothing; so does a read-only transaction.
 * Thread-safe.
 */
public interface SwitchboardOutbox {

    /**
     * {@return the writer of {@code payloadType} to {@code destination}; the same instance on every call with the same
     * arguments} Payloads are encoded with the codec the {@link CodecResolver} picks (as {@link Publishers} does), and
     * the destination's name is checked here, against every broker instance its route may name at relay time.
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param payloadType the payload class
     * @throws io.switchboard.InvalidDestinationException when a broker instance refuses the name
     */
    <T> TransactionalPublisher<T> publisher(String destination, Class<T> payloadType);

    /**
     * Writes {@code message} for {@code destination} in the current transaction; its payload's class picks the codec.
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param message the message; an id is given to it here when it has none, and kept on every send
     * @return the message's id
     * @throws io.switchboard.outbox.OutboxException when no transaction is active, it is read-only, or it does not hold
     *     a connection of the outbox's DataSource; nothing is written then
     */
    <T> String publish(String destination, Message<T> message);

    /** {@return the core outbox: its table, relay, backlog and health; for plain-JDBC code, {@code publish(connection, ..)}} */
    Outbox outbox();

    /** {@return the number of messages not sent yet, as last read (every {@code switchboard.outbox.stats-interval})} */
    default long backlog() {
        return outbox().backlog();
    }

    /** {@return the age of the oldest message not sent yet, as last read; zero when there is none} */
    default Duration oldestUnsentAge() {
        return outbox().oldestUnsentAge();
    }
}
