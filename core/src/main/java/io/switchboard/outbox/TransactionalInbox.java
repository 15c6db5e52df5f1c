package io.switchboard.outbox;

import io.switchboard.DeliveryContext;
import io.switchboard.JdbcIdempotencyStore;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbox: runs a handler in a database transaction of its own and marks the message processed in that same
 * transaction, so the handler's writes and the mark commit together: a redelivered message (any broker, RabbitMQ
 * included) finds the mark and changes nothing. Use it on an {@link io.switchboard.Delivery#EXACTLY_ONCE}
 * subscription of a Switchboard built with the same {@link JdbcIdempotencyStore} (core claims the id before the
 * handler and drops ids already done); the store's table must be in {@code dataSource}'s database.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
 * Switchboard sb = Switchboard.builder().broker("rabbitmq").idempotencyStore(store).build();
 * TransactionalInbox inbox = TransactionalInbox.of(dataSource, store);
 * sb.subscriber("orders", Codec.utf8()).group("billing").delivery(Delivery.EXACTLY_ONCE)
 *         .subscribe(inbox.handler((message, context, connection) -> writeInvoice(connection, message.payload())));
 * }</pre>
 */
public final class TransactionalInbox {

    private static final Logger log = LoggerFactory.getLogger(TransactionalInbox.class);

    private final DataSource dataSource;
    private final JdbcIdempotencyStore store;

    private TransactionalInbox(DataSource dataSource, JdbcIdempotencyStore store) {
        this.dataSource = dataSource;
        this.store = store;
    }

    /**
     * An inbox over the handler's database and the idempotency store whose table is in it.
     *
     * @param dataSource the database of the handler's writes and of the store's table
     * @param store the store the Switchboard was built with
     * @return the inbox
     */
    public static TransactionalInbox of(DataSource dataSource, JdbcIdempotencyStore store) {
        return new TransactionalInbox(Objects.requireNonNull(dataSource, "dataSource"), Objects.requireNonNull(store, "store"));
    }

    /**
     * A handler that opens a transaction, calls {@code handler} with its connection, marks the message done in it and
     * commits; it rolls back when {@code handler} throws (the message is then retried as the subscription says) or when
     * the message was already done by another delivery.
     *
     * @param <T> the payload type
     * @param handler the application's handler; it must not commit, roll back or close the connection
     * @return the handler to subscribe
     */
    public <T> MessageHandler<T> handler(Handler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        return (message, context) -> {
            String scope = context.idempotencyScope();
            if (scope == null) {
                throw new IllegalStateException("TransactionalInbox needs an EXACTLY_ONCE subscription (there is no idempotency"
                        + " scope for message " + message.id() + " of '" + context.destination() + "'); subscribe with"
                        + " .delivery(Delivery.EXACTLY_ONCE) on a Switchboard built with .idempotencyStore(store)");
            }
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                boolean committed = false;
                try {
                    handler.handle(message, context, c);
                    if (store.completeIn(c, scope, message.id())) {
                        c.commit();
                    } else {
                        c.rollback();
                        log.debug("Message {} of '{}' was already processed; its second run rolled back", message.id(), scope);
                    }
                    committed = true;
                } finally {
                    if (!committed) {
                        rollbackQuietly(c);
                    }
                }
            }
        };
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("Rollback after a failed handler failed too: {}", e.getMessage());
        }
    }

    /**
     * A handler given the connection of the transaction its writes and the processed mark commit in.
     *
     * @param <T> the payload type
     */
    @FunctionalInterface
    public interface Handler<T> {
        /**
         * Handles a message inside the transaction.
         *
         * @param message the message
         * @param context its delivery context
         * @param connection the transaction's connection (auto-commit off); do not commit, roll back or close it
         * @throws Exception to roll back and have the message retried
         */
        void handle(Message<T> message, DeliveryContext context, Connection connection) throws Exception;
    }
}
