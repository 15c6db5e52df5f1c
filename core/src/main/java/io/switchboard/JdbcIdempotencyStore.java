package io.switchboard;

import io.switchboard.spi.IdempotencyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable {@link IdempotencyStore} in a relational database, so that exactly-once processing
 * holds across restarts: one row per (scope, message id) with its state (claimed or done) and the
 * time it last changed. Portable SQL (tested on PostgreSQL); the driver is the application's, core
 * needs only {@code java.sql}.
 *
 * <ul>
 *   <li>A claim is an INSERT; a duplicate key means the id is done or being processed, and the
 *       caller acks the record as a duplicate. A claim older than {@code claimTimeout} (its process
 *       died between claim and complete) is taken over, so it never blocks an id forever.</li>
 *   <li>Done ids expire after {@code retention}; the table is kept to at most {@code maxRows} done
 *       rows (oldest first). Both are enforced every {@code purgeEvery} completions.</li>
 * </ul>
 *
 * <pre>{@code
 * IdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).retention(Duration.ofDays(7)).build();
 * Switchboard.builder().broker("rabbitmq").idempotencyStore(store)...
 * }</pre>
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    private static final Logger log = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final String table;
    private final Duration retention;
    private final Duration claimTimeout;
    private final long maxRows;
    private final int purgeEvery;
    private final Clock clock;
    private final AtomicLong completions = new AtomicLong();

    private JdbcIdempotencyStore(Builder b) {
        this.dataSource = b.dataSource;
        this.table = b.table;
        this.retention = b.retention;
        this.claimTimeout = b.claimTimeout;
        this.maxRows = b.maxRows;
        this.purgeEvery = b.purgeEvery;
        this.clock = b.clock;
    }

    /** Starts a builder over a data source. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    @Override
    public boolean tryClaim(String scope, String messageId) {
        Timestamp now = now();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                    + " (scope, message_id, state, updated_at) VALUES (?, ?, 'C', ?)")) {
                insert.setString(1, scope);
                insert.setString(2, messageId);
                insert.setTimestamp(3, now);
                insert.executeUpdate();
                return true;
            } catch (SQLException e) {
                if (!isDuplicateKey(e)) {
                    throw e;
                }
            }
            // present: done, claimed by a live delivery, or a stale claim of a process that died
            try (PreparedStatement takeOver = c.prepareStatement("UPDATE " + table
                    + " SET updated_at = ? WHERE scope = ? AND message_id = ? AND state = 'C' AND updated_at < ?")) {
                takeOver.setTimestamp(1, now);
                takeOver.setString(2, scope);
                takeOver.setString(3, messageId);
                takeOver.setTimestamp(4, Timestamp.from(now.toInstant().minus(claimTimeout)));
                boolean took = takeOver.executeUpdate() == 1;
                if (took) {
                    log.info("Took over the stale claim of message {} in '{}' (older than {})", messageId, scope, claimTimeout);
                }
                return took;
            }
        } catch (SQLException e) {
            throw failure("claim", scope, messageId, e);
        }
    }

    @Override
    public void complete(String scope, String messageId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement done = c.prepareStatement("UPDATE " + table
                        + " SET state = 'D', updated_at = ? WHERE scope = ? AND message_id = ?")) {
            c.setAutoCommit(true);
            done.setTimestamp(1, now());
            done.setString(2, scope);
            done.setString(3, messageId);
            done.executeUpdate();
        } catch (SQLException e) {
            throw failure("complete", scope, messageId, e);
        }
        if (completions.incrementAndGet() % purgeEvery == 0) {
            purge();
        }
    }

    @Override
    public void release(String scope, String messageId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement delete = c.prepareStatement("DELETE FROM " + table
                        + " WHERE scope = ? AND message_id = ? AND state = 'C'")) {
            c.setAutoCommit(true);
            delete.setString(1, scope);
            delete.setString(2, messageId);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw failure("release", scope, messageId, e);
        }
    }

    /**
     * Deletes done ids older than the retention, then the oldest done ids beyond {@code maxRows};
     * returns how many rows went. Runs by itself every {@code purgeEvery} completions.
     */
    public int purge() {
        int deleted = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement expired = c.prepareStatement("DELETE FROM " + table + " WHERE state = 'D' AND updated_at < ?")) {
                expired.setTimestamp(1, Timestamp.from(clock.instant().minus(retention)));
                deleted += expired.executeUpdate();
            }
            Timestamp cutoff = null;
            try (PreparedStatement nth = c.prepareStatement("SELECT updated_at FROM " + table
                    + " WHERE state = 'D' ORDER BY updated_at DESC OFFSET ? ROWS FETCH NEXT 1 ROWS ONLY")) {
                nth.setLong(1, maxRows);
                try (ResultSet rs = nth.executeQuery()) {
                    if (rs.next()) {
                        cutoff = rs.getTimestamp(1);
                    }
                }
            }
            if (cutoff != null) {
                try (PreparedStatement oldest = c.prepareStatement("DELETE FROM " + table
                        + " WHERE state = 'D' AND updated_at <= ?")) {
                    oldest.setTimestamp(1, cutoff);
                    deleted += oldest.executeUpdate();
                }
            }
        } catch (SQLException e) {
            log.warn("Purging idempotency table '{}' failed; it is tried again after {} more completions: {}", table, purgeEvery,
                    e.getMessage());
        }
        return deleted;
    }

    private Timestamp now() {
        return Timestamp.from(clock.instant());
    }

    private static boolean isDuplicateKey(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            String state = s.getSQLState();
            if (state != null && state.startsWith("23")) { // integrity constraint violation (SQL standard class 23)
                return true;
            }
        }
        return e instanceof java.sql.SQLIntegrityConstraintViolationException;
    }

    private SwitchboardException failure(String action, String scope, String messageId, SQLException e) {
        return new SwitchboardException("Idempotency table '" + table + "': could not " + action + " message " + messageId + " of '"
                + scope + "' (SQL state " + e.getSQLState() + "): " + e.getMessage() + "; check the database and that the table "
                + "exists (builder().createTable(true) creates it)", e);
    }

    @Override
    public String toString() {
        return "JdbcIdempotencyStore[" + table + ", retention " + retention + ", max " + maxRows + " rows]";
    }

    /** Builds a {@link JdbcIdempotencyStore}; each setter checks its value at once. */
    public static final class Builder {
        private final DataSource dataSource;
        private String table = "switchboard_processed";
        private Duration retention = Duration.ofDays(7);
        private Duration claimTimeout = Duration.ofMinutes(5);
        private long maxRows = 10_000_000;
        private int purgeEvery = 1000;
        private boolean createTable = true;
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The table; default {@code switchboard_processed}; letters, digits and '_' (optionally schema-qualified). */
        public Builder table(String name) {
            if (name == null || !TABLE.matcher(name).matches()) {
                throw new ConfigurationException("Idempotency table name '" + name + "' is not valid: use letters, digits and '_',"
                        + " optionally schema.table, such as switchboard_processed");
            }
            this.table = name;
            return this;
        }

        /** How long done ids are kept; default 7 days; at least 1 s. */
        public Builder retention(Duration retention) {
            this.retention = positive("retention", retention);
            return this;
        }

        /** After how long an unfinished claim is taken over; default 5 min; at least 1 s. */
        public Builder claimTimeout(Duration timeout) {
            this.claimTimeout = positive("claim-timeout", timeout);
            return this;
        }

        /** The most done rows kept; default 10,000,000. */
        public Builder maxRows(long rows) {
            if (rows < 1) {
                throw new ConfigurationException("Idempotency max-rows is " + rows + " but must be at least 1, such as 1000000");
            }
            this.maxRows = rows;
            return this;
        }

        /** Purge after every this many completions; default 1000. */
        public Builder purgeEvery(int completions) {
            if (completions < 1) {
                throw new ConfigurationException("Idempotency purge-every is " + completions + " but must be at least 1, such as 1000");
            }
            this.purgeEvery = completions;
            return this;
        }

        /** Create the table if it does not exist (CREATE TABLE IF NOT EXISTS); default true. */
        public Builder createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /** The clock (tests); default UTC. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        private static Duration positive(String name, Duration d) {
            if (d == null || d.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new ConfigurationException("Idempotency " + name + " is " + d + " but must be at least 1s, such as 7d");
            }
            return d;
        }

        /**
         * The store; creates the table when asked.
         *
         * @throws SwitchboardException when the database cannot be reached or the table not created
         */
        public JdbcIdempotencyStore build() {
            if (createTable) {
                try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                    c.setAutoCommit(true);
                    s.execute("CREATE TABLE IF NOT EXISTS " + table + " (scope VARCHAR(512) NOT NULL, message_id VARCHAR(255) NOT NULL,"
                            + " state CHAR(1) NOT NULL, updated_at TIMESTAMP NOT NULL, PRIMARY KEY (scope, message_id))");
                } catch (SQLException e) {
                    throw new SwitchboardException("Could not create idempotency table '" + table + "' (SQL state " + e.getSQLState()
                            + "): " + e.getMessage() + "; check the data source, or create the table yourself and use "
                            + "createTable(false)", e);
                }
            }
            return new JdbcIdempotencyStore(this);
        }
    }
}
