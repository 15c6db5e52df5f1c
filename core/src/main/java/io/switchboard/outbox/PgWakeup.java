package io.switchboard.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The relay's wake-up on PostgreSQL: a connection of its own that LISTENs on the table's channel (the insert trigger
 * NOTIFYs it when a transaction that wrote rows commits). Loaded only on PostgreSQL with pgjdbc, which core needs at
 * compile time only. {@link #close()} UNLISTENs and puts auto-commit back before the connection goes back to its pool.
 */
final class PgWakeup implements AutoCloseable {

    private final Connection connection;
    private final PGConnection pg;
    private final boolean autoCommit;
    private final String table;

    private PgWakeup(Connection connection, PGConnection pg, boolean autoCommit, String table) {
        this.connection = connection;
        this.pg = pg;
        this.autoCommit = autoCommit;
        this.table = table;
    }

    /** {@return a listener on {@code channel}}; the connection is handed back when it cannot be one */
    static PgWakeup listen(Connection connection, String channel, String table) throws SQLException {
        boolean autoCommit = true;
        try {
            autoCommit = connection.getAutoCommit();
            PGConnection pg = connection.unwrap(PGConnection.class);
            connection.setAutoCommit(true);
            try (Statement s = connection.createStatement()) {
                s.execute("LISTEN \"" + channel + "\"");
            }
            return new PgWakeup(connection, pg, autoCommit, table);
        } catch (SQLException | RuntimeException e) {
            handBack(connection, autoCommit, table);
            throw e;
        }
    }

    /** Waits up to {@code millis} for a notification; true when one (or more) came. */
    boolean await(int millis) throws SQLException {
        PGNotification[] notifications = pg.getNotifications(Math.max(1, millis));
        return notifications != null && notifications.length > 0;
    }

    /** Checks that the connection still answers (a LISTEN connection otherwise only reads). */
    void ping() throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("SELECT 1");
        }
    }

    @Override
    public void close() {
        handBack(connection, autoCommit, table);
    }

    private static void handBack(Connection connection, boolean autoCommit, String table) {
        try {
            if (!connection.isClosed()) {
                try (Statement s = connection.createStatement()) {
                    s.execute("UNLISTEN *");
                }
            }
        } catch (SQLException | RuntimeException e) {
            Sessions.abort(connection); // still listening, perhaps: never back to the pool so
            return;
        }
        Sessions.handBack(connection, autoCommit, currentIsolation(connection), table);
    }

    private static int currentIsolation(Connection connection) {
        try {
            return connection.getTransactionIsolation();
        } catch (SQLException e) {
            return Connection.TRANSACTION_READ_COMMITTED;
        }
    }
}
