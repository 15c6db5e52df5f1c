package io.switchboard.spring.internal;

import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxException;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.SwitchboardOutbox;
import io.switchboard.spring.TransactionalPublisher;
import java.sql.Connection;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Joins the core {@link Outbox} to Spring's transactions: each publish takes the connection of the current transaction
 * with {@link DataSourceUtils#getConnection(DataSource)} (the one the transaction manager bound to the thread), writes
 * on it and hands it back with {@link DataSourceUtils#releaseConnection}, which leaves it to the transaction.
 */
public final class DefaultSwitchboardOutbox implements SwitchboardOutbox {

    private final Outbox outbox;
    private final DataSource dataSource;
    private final CodecResolver codecs;
    /** By destination, then payload class: two lookups and no allocation on the publish path once made. */
    private final Map<String, Map<Class<?>, Writer<?>>> writers = new ConcurrentHashMap<>();

    /**
     * Creates the outbox of the application.
     *
     * @param outbox the core outbox, on {@code dataSource}
     * @param dataSource the DataSource of the application's transactions
     * @param codecs picks each destination's codec
     */
    public DefaultSwitchboardOutbox(Outbox outbox, DataSource dataSource, CodecResolver codecs) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.codecs = Objects.requireNonNull(codecs, "codecs");
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> TransactionalPublisher<T> publisher(String destination, Class<T> payloadType) {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(payloadType, "payloadType");
        Map<Class<?>, Writer<?>> byType = writers.get(destination);
        Writer<?> writer = byType == null ? null : byType.get(payloadType);
        if (writer == null) {
            writer = writers.computeIfAbsent(destination, d -> new ConcurrentHashMap<>())
                    .computeIfAbsent(payloadType, t -> new Writer<>(outbox.publisher(destination, codecs.codec(destination, payloadType))));
        }
        return (TransactionalPublisher<T>) writer;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> String publish(String destination, Message<T> message) {
        if (message == null || message.payload() == null) {
            throw new InvalidMessageException("A message for '" + destination + "' in outbox '" + outbox.table() + "' is "
                    + (message == null ? "null" : "without payload") + "; give a message with a payload");
        }
        return publisher(destination, (Class<T>) message.payload().getClass()).publish(message);
    }

    @Override
    public Outbox outbox() {
        return outbox;
    }

    @Override
    public String toString() {
        return "SwitchboardOutbox[" + outbox + "]";
    }

    /**
     * The connection of the current transaction on the outbox's DataSource; refuses, naming the fix, when there is no
     * such transaction. The caller releases it.
     */
    private Connection transactionConnection(String destination) {
        // the connection the transaction manager bound for the outbox's DataSource; asked before getConnection, which
        // would bind a fresh connection of its own (committed apart from the transaction) when the transaction holds none
        boolean held = TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder
                && heldByManager(holder);
        if (!held) {
            if (!TransactionSynchronizationManager.isActualTransactionActive()) {
                throw new OutboxException("Outbox '" + outbox.table() + "': no transaction is active, so a message for '"
                        + destination + "' would be written without the application's own writes. Publish inside a"
                        + " transaction: annotate the calling method with @Transactional (on a Spring bean, called from"
                        + " another bean so that its proxy applies), or wrap the call in TransactionTemplate.execute(..)."
                        + " Nothing was written");
            }
            throw new OutboxException("Outbox '" + outbox.table() + "': a transaction is active, but its transaction"
                    + " manager holds no connection of the outbox's DataSource (a transaction of another DataSource's"
                    + " manager, a JpaTransactionManager without that DataSource, or a JTA transaction), so a message for '"
                    + destination + "' would commit apart from the application's writes. Run the transaction with the"
                    + " DataSourceTransactionManager (or JdbcTransactionManager) of that DataSource, or a"
                    + " JpaTransactionManager given it (Spring Boot's default for a single DataSource). Nothing was written");
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new OutboxException("Outbox '" + outbox.table() + "': the current transaction is read-only, so a message"
                    + " for '" + destination + "' cannot be written in it; publish from a read-write transaction"
                    + " (@Transactional without readOnly = true). Nothing was written");
        }
        return DataSourceUtils.getConnection(dataSource);
    }

    /** ConnectionHolder's own flag of a transaction a DataSourceTransactionManager began on its connection. */
    private static final Method TRANSACTION_ACTIVE = transactionActive();

    private static Method transactionActive() {
        try {
            Method m = ConnectionHolder.class.getDeclaredMethod("isTransactionActive");
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * True when a transaction manager bound the holder: a DataSourceTransactionManager's (its transaction active on the
     * connection) or a JpaTransactionManager's (the EntityManager's connection, not synchronized by DataSourceUtils).
     * False for the holder {@link DataSourceUtils#getConnection} binds by itself inside another manager's transaction: a
     * connection of its own, handed back at completion without a commit of the transaction's.
     */
    private static boolean heldByManager(ConnectionHolder holder) {
        if (!holder.isSynchronizedWithTransaction()) {
            return true;
        }
        if (TRANSACTION_ACTIVE == null) {
            return true; // cannot tell: the core's checks of the connection still apply
        }
        try {
            return (Boolean) TRANSACTION_ACTIVE.invoke(holder);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return true;
        }
    }

    /** One destination and payload type. */
    private final class Writer<T> implements TransactionalPublisher<T> {

        private final OutboxPublisher<T> publisher;

        Writer(OutboxPublisher<T> publisher) {
            this.publisher = publisher;
        }

        @Override
        public String publish(T payload) {
            return publish(Message.of(payload));
        }

        @Override
        public String publish(Message<T> message) {
            return publishAll(List.of(message)).get(0); // one row, as the core's own publish writes it
        }

        @Override
        public List<String> publishAll(List<Message<T>> messages) {
            Connection connection = transactionConnection(publisher.destination());
            try {
                return publisher.publishAll(connection, messages);
            } finally {
                DataSourceUtils.releaseConnection(connection, dataSource);
            }
        }

        @Override
        public String destination() {
            return publisher.destination();
        }

        @Override
        public String toString() {
            return "TransactionalPublisher[" + publisher.destination() + " -> outbox '" + outbox.table() + "']";
        }
    }
}
