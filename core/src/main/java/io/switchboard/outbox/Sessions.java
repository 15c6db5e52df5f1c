package io.switchboard.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a borrowed connection back as the pool gave it: rolled back, auto-commit and isolation as they were. A
 * connection whose session cannot be put back is aborted, so that a pool drops it rather than lending it on changed.
 */
final class Sessions {

    private static final Logger log = LoggerFactory.getLogger(Sessions.class);
    private static final Executor NOW = Runnable::run;

    private Sessions() {}

    static void handBack(Connection c, boolean autoCommit, int isolation, String table) {
        try {
            if (!c.isClosed()) {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                if (c.getAutoCommit() != autoCommit) {
                    c.setAutoCommit(autoCommit);
                }
                if (c.getTransactionIsolation() != isolation) {
                    c.setTransactionIsolation(isolation);
                }
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Outbox '{}': could not put a connection's session back ({}); it is aborted", table, e.toString());
            abort(c);
            return;
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("Outbox '{}': closing a connection failed: {}", table, e.toString());
        }
    }

    static void abort(Connection c) {
        try {
            c.abort(NOW);
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            try {
                c.close();
            } catch (SQLException | RuntimeException ignored) {
                // gone anyway
            }
        }
    }
}
