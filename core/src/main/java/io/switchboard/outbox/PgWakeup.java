package io.switchboard.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The relay's wake-up on PostgreSQL: a connection of its own that LISTENs on the table's channel (the insert trigger
 * NOTIFYs it when a transaction that wrote rows commits). Loaded only on PostgreSQL with pgjdbc, which core needs at
 * compile time only.
 */
final class PgWakeup implements AutoCloseable {

    private final Connection connection;
    private final PGConnection pg;

    private PgWakeup(Connection connection, PGConnection pg) {
        this.connection = connection;
        this.pg = pg;
    }

    /** {@return a listener on {@code channel}}; the connection is closed when it cannot be one */
    static PgWakeup listen(Connection connection, String channel) throws SQLException {
        try {
            PGConnection pg = connection.unwrap(PGConnection.class);
            connection.setAutoCommit(true);
            try (Statement s = connection.createStatement()) {
                s.execute("LISTEN \"" + channel + "\"");
            }
            return new PgWakeup(connection, pg);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** Waits up to {@code millis} for a notification; true when one (or more) came. */
    boolean await(int millis) throws SQLException {
        PGNotification[] notifications = pg.getNotifications(Math.max(1, millis));
        return notifications != null && notifications.length > 0;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing anyway
        }
    }
}
