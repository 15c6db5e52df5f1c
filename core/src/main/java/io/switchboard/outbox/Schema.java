package io.switchboard.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the outbox's tables when missing, checks that the application's user may use them, fills the lock table. */
final class Schema {

    private static final Logger log = LoggerFactory.getLogger(Schema.class);

    private final String table;
    private final Dialect dialect;

    Schema(String table, Dialect dialect) {
        this.table = table;
        this.dialect = dialect;
    }

    void ensure(Connection c, boolean create, int buckets) throws SQLException {
        SQLException missing = readable(c);
        if (missing != null && Outbox.isPermission(missing)) {
            throw refused("read", missing, c);
        }
        if (missing != null) {
            if (!create) {
                throw new OutboxException("Outbox table '" + table + "' or '" + table + "_lock' is missing (SQL state "
                        + missing.getSQLState() + ": " + missing.getMessage() + ") and createSchema is false; create them with"
                        + " " + dialect.scriptResource() + " (from switchboard-core, with your table's name), or build with"
                        + " createSchema(true)", missing);
            }
            create(c);
        }
        upgrade(c, create);
        fillLocks(c, buckets);
        probe(c);
        checkBinlog(c);
    }

    /** Null when both tables can be read; else the error. */
    private SQLException readable(Connection c) {
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT id, bucket, destination, message_key, message_id, content_type, headers, payload,"
                    + " created_micros, deliver_at_millis, sent_micros FROM " + table + " WHERE 1 = 0").close();
            s.executeQuery("SELECT bucket FROM " + table + "_lock WHERE 1 = 0").close();
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    private void create(Connection c) throws SQLException {
        log.info("Creating outbox table '{}' ({})", table, dialect.scriptResource());
        try (Statement s = c.createStatement()) {
            for (String statement : dialect.schema(table)) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            if (readable(c) == null) {
                return; // another replica made it at the same time
            }
            if (Outbox.isPermission(e)) {
                throw new OutboxException("Outbox table '" + table + "' is missing and user '" + user(c) + "' may not create"
                        + " it (SQL state " + e.getSQLState() + ": " + e.getMessage() + "); grant CREATE on the schema, or have"
                        + " an owner run " + dialect.scriptResource() + " (with your table's name) and build with"
                        + " createSchema(false)", e);
            }
            throw new OutboxException("Outbox table '" + table + "' could not be created (SQL state " + e.getSQLState() + "): "
                    + e.getMessage() + "; create it with " + dialect.scriptResource() + " and build with createSchema(false)", e);
        }
    }

    /** Adds what a table made by an earlier version lacks: the attempt columns and the parked table. */
    private void upgrade(Connection c, boolean create) throws SQLException {
        SQLException missing = null;
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT attempts, retry_at_millis, last_error, written_micros FROM " + table + " WHERE 1 = 0").close();
            s.executeQuery("SELECT id, attempts, last_error, parked_micros FROM " + table + "_parked WHERE 1 = 0").close();
        } catch (SQLException e) {
            missing = e;
        }
        if (missing == null) {
            return;
        }
        if (!c.getAutoCommit()) {
            c.rollback(); // PostgreSQL: the failed query ended the transaction
        }
        List<String> statements = dialect.upgrade(table);
        if (!create) {
            throw new OutboxException("Outbox table '" + table + "' was made by an earlier version: it lacks the columns"
                    + " attempts, retry_at_millis, last_error and written_micros or the table " + table + "_parked (SQL state "
                    + missing.getSQLState() + ": " + missing.getMessage() + ") and createSchema is false; run "
                    + String.join("; ", statements) + " (see " + dialect.scriptResource() + "), or build with"
                    + " createSchema(true)", missing);
        }
        log.info("Outbox table '{}': adding the attempt columns and the parked table ({})", table, dialect.scriptResource());
        try (Statement s = c.createStatement()) {
            for (String statement : statements) {
                try {
                    s.execute(statement);
                } catch (SQLException e) {
                    if (Outbox.isPermission(e)) {
                        throw refused("upgrade", e, c);
                    }
                    // made by another replica at the same time; checked below
                    log.debug("Outbox table '{}': {} failed: {}", table, statement, e.getMessage());
                }
            }
        }
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT attempts, retry_at_millis, last_error, written_micros FROM " + table + " WHERE 1 = 0").close();
            s.executeQuery("SELECT id, attempts, last_error, parked_micros FROM " + table + "_parked WHERE 1 = 0").close();
        }
    }

    /**
     * MariaDB and MySQL with the binary log in STATEMENT format: a replica replays the relay's {@code SKIP LOCKED}
     * statements on other rows than the source took, so the outbox refuses to start there.
     */
    private void checkBinlog(Connection c) throws SQLException {
        if (dialect != Dialect.MARIADB && dialect != Dialect.MYSQL) {
            return;
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@log_bin, @@binlog_format")) {
            if (rs.next() && rs.getInt(1) == 1 && "STATEMENT".equalsIgnoreCase(rs.getString(2))) {
                throw new OutboxException("Outbox table '" + table + "': the database writes its binary log with"
                        + " binlog_format=STATEMENT, which replays the relay's SELECT .. FOR UPDATE SKIP LOCKED and DELETE"
                        + " on other rows on a replica; set binlog_format=ROW (or MIXED) for the server, or for the"
                        + " application's user's sessions");
            }
        }
    }

    /** One lock row per bucket; rows of other replicas' larger counts are kept. */
    private void fillLocks(Connection c, int buckets) throws SQLException {
        Set<Integer> present = new HashSet<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT bucket FROM " + table + "_lock")) {
            while (rs.next()) {
                present.add(rs.getInt(1));
            }
        }
        if (present.size() >= buckets && present.contains(buckets - 1)) {
            return;
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + "_lock (bucket) VALUES (?)")) {
            for (int b = 0; b < buckets; b++) {
                if (!present.contains(b)) {
                    insert.setInt(1, b);
                    try {
                        insert.executeUpdate();
                    } catch (SQLException e) {
                        if (Outbox.isPermission(e)) {
                            throw refused("fill the lock table", e, c);
                        }
                        // a duplicate: another replica filled it at the same time
                    }
                }
            }
        }
    }

    /** A row written, changed and deleted in a transaction rolled back: proves the grants the relay needs. */
    private void probe(Connection c) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO " + table + " (bucket, destination, message_id, payload, created_micros)"
                    + " VALUES (-1, 'switchboard-outbox-probe', 'probe', " + (dialect == Dialect.POSTGRESQL ? "''::bytea" : "X''")
                    + ", 0)");
            s.executeUpdate("UPDATE " + table + " SET sent_micros = 0 WHERE bucket = -1");
            s.executeUpdate("DELETE FROM " + table + " WHERE bucket = -1");
            s.executeQuery("SELECT bucket FROM " + table + "_lock WHERE bucket = 0 FOR UPDATE SKIP LOCKED").close();
            s.executeUpdate("DELETE FROM " + table + "_parked WHERE bucket = -1");
        } catch (SQLException e) {
            c.rollback();
            if (Outbox.isPermission(e)) {
                throw refused("write", e, c);
            }
            throw e;
        } finally {
            try {
                c.rollback();
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    boolean hasNotifyTrigger(Connection c) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_trigger WHERE lower(tgname) = lower(?) AND NOT tgisinternal")) {
            ps.setString(1, table.replace('.', '_') + "_notify");
            try (ResultSet rs = ps.executeQuery()) {
                boolean found = rs.next();
                if (!found) {
                    log.info("Outbox table '{}' has no notify trigger ({}); the relay polls", table, dialect.scriptResource());
                }
                return found;
            }
        }
    }

    private OutboxException refused(String action, SQLException e, Connection c) {
        return new OutboxException("Outbox table '" + table + "': user '" + user(c) + "' may not " + action + " it (SQL state "
                + e.getSQLState() + ": " + e.getMessage() + "); grant SELECT, INSERT, UPDATE and DELETE on " + table + ", "
                + table + "_parked and " + table + "_lock" + (dialect == Dialect.POSTGRESQL ? " (and USAGE on the sequence of " + table + ".id)" : "")
                + " to that user", e);
    }

    private static String user(Connection c) {
        try {
            return c.getMetaData().getUserName();
        } catch (SQLException e) {
            return "?";
        }
    }
}
