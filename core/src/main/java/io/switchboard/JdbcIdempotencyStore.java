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
 *   <li>A claim is an INSERT; on a duplicate key the row tells: done ({@code DONE}, the caller acks
 *       the record as a duplicate) or claimed by another delivery ({@code BUSY}: the caller waits
 *       and claims again, or hands the record back; it never acks it). A claim older than
 *       {@code claimTimeout} (its process died between claim and complete) is taken over, so it
 *       never blocks an id forever; {@code claimTimeout} must be longer than the slowest handler
 *       run, or a live claim is taken over too.</li>
 *   <li>{@link #completeIn} marks the id done in the handler's own transaction, so its output and
 *       the mark commit together (exactly-once output across crashes).</li>
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

    /**
     * Starts a builder over a data source.
     *
     * @param dataSource where the table is
     * @return a builder with the defaults
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    @Override
    public Claim claim(String scope, String messageId) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            // a row can vanish between the INSERT and the SELECT (released, purged): then claim again, a few times
            for (int round = 0; round < 3; round++) {
                Timestamp now = now();
                if (insertClaim(c, scope, messageId, now)) {
                    return Claim.CLAIMED;
                }
                // present: done, claimed by a live delivery, or a stale claim of a process that died
                try (PreparedStatement takeOver = c.prepareStatement("UPDATE " + table
                        + " SET updated_at = ? WHERE scope = ? AND message_id = ? AND state = 'C' AND updated_at < ?")) {
                    takeOver.setTimestamp(1, now, utc());
                    takeOver.setString(2, scope);
                    takeOver.setString(3, messageId);
                    takeOver.setTimestamp(4, Timestamp.from(now.toInstant().minus(claimTimeout)), utc());
                    if (takeOver.executeUpdate() == 1) {
                        log.info("Took over the stale claim of message {} in '{}' (older than {})", messageId, scope, claimTimeout);
                        return Claim.CLAIMED;
                    }
                }
                String state = state(c, scope, messageId);
                if (state != null) {
                    return "D".equals(state) ? Claim.DONE : Claim.BUSY;
                }
            }
            return Claim.BUSY; // still changing under us: the caller claims again later
        } catch (SQLException e) {
            throw failure("claim", scope, messageId, e);
        }
    }

    /**
     * Marks an id done inside the caller's own transaction, so that the handler's output and the
     * mark commit (or roll back) together: exactly-once output across crashes. Call it from the
     * handler of an {@code EXACTLY_ONCE} subscription on the connection of the handler's transaction
     * (auto-commit off), with {@link io.switchboard.DeliveryContext#idempotencyScope()} and
     * {@link io.switchboard.Message#id()}, then commit. Core's own {@link #complete} after the
     * handler returns is then harmless.
     *
     * <p>The row of a claim is locked until the transaction ends. When it answers false, another
     * delivery has already marked the id done (this delivery's claim was taken over after the claim
     * timeout, and the other one committed first): roll back and return normally; core acknowledges
     * the record.
     *
     * <pre>{@code
     * try (Connection c = dataSource.getConnection()) {
     *     c.setAutoCommit(false);
     *     insertOutput(c, message.payload());
     *     if (store.completeIn(c, context.idempotencyScope(), message.id())) {
     *         c.commit();
     *     } else {
     *         c.rollback(); // a duplicate: its output is already there
     *     }
     * }
     * }</pre>
     *
     * @param connection the handler's connection, in a transaction; not committed or closed here
     * @param scope the idempotency scope, {@link io.switchboard.DeliveryContext#idempotencyScope()}
     * @param messageId the message id, {@link io.switchboard.Message#id()}
     * @return true when this transaction marks the id done; false when it was already done
     * @throws SwitchboardException when the statement fails; roll back then
     */
    public boolean completeIn(Connection connection, String scope, String messageId) {
        Objects.requireNonNull(connection, "connection");
        if (scope == null) {
            throw new IllegalArgumentException("completeIn for message " + messageId + " got no idempotency scope: call it from"
                    + " the handler of an EXACTLY_ONCE subscription, passing DeliveryContext.idempotencyScope()");
        }
        try {
            try (PreparedStatement done = connection.prepareStatement("UPDATE " + table
                    + " SET state = 'D', updated_at = ? WHERE scope = ? AND message_id = ? AND state = 'C'")) {
                done.setTimestamp(1, now(), utc());
                done.setString(2, scope);
                done.setString(3, messageId);
                if (done.executeUpdate() == 1) {
                    return true;
                }
            }
            if (state(connection, scope, messageId) != null) {
                return false; // done (a claim is 'C' and the UPDATE above would have taken it)
            }
            // no row (released by a taker that failed, or purged): record it done now
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
                    + " (scope, message_id, state, updated_at) VALUES (?, ?, 'D', ?)")) {
                insert.setString(1, scope);
                insert.setString(2, messageId);
                insert.setTimestamp(3, now(), utc());
                insert.executeUpdate();
                return true;
            }
        } catch (SQLException e) {
            throw failure("mark done in the caller's transaction", scope, messageId, e);
        }
    }

    private boolean insertClaim(Connection c, String scope, String messageId, Timestamp now) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                + " (scope, message_id, state, updated_at) VALUES (?, ?, 'C', ?)")) {
            insert.setString(1, scope);
            insert.setString(2, messageId);
            insert.setTimestamp(3, now, utc());
            insert.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (!isDuplicateKey(e)) {
                throw e;
            }
            return false;
        }
    }

    /** The row's state ('C' or 'D'), or null when there is no row. */
    private String state(Connection c, String scope, String messageId) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT state FROM " + table + " WHERE scope = ? AND message_id = ?")) {
            select.setString(1, scope);
            select.setString(2, messageId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Override
    public void complete(String scope, String messageId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement done = c.prepareStatement("UPDATE " + table
                        + " SET state = 'D', updated_at = ? WHERE scope = ? AND message_id = ?")) {
            c.setAutoCommit(true);
            done.setTimestamp(1, now(), utc());
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
     *
     * @return how many rows were deleted
     */
    public int purge() {
        int deleted = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement expired = c.prepareStatement("DELETE FROM " + table + " WHERE state = 'D' AND updated_at < ?")) {
                expired.setTimestamp(1, Timestamp.from(clock.instant().minus(retention)), utc());
                deleted += expired.executeUpdate();
            }
            Timestamp cutoff = null;
            try (PreparedStatement nth = c.prepareStatement("SELECT updated_at FROM " + table
                    + " WHERE state = 'D' ORDER BY updated_at DESC LIMIT 1 OFFSET ?")) {
                nth.setLong(1, maxRows);
                try (ResultSet rs = nth.executeQuery()) {
                    if (rs.next()) {
                        cutoff = rs.getTimestamp(1, utc());
                    }
                }
            }
            if (cutoff != null) {
                try (PreparedStatement oldest = c.prepareStatement("DELETE FROM " + table
                        + " WHERE state = 'D' AND updated_at <= ?")) {
                    oldest.setTimestamp(1, cutoff, utc());
                    deleted += oldest.executeUpdate();
                }
            }
        } catch (SQLException e) {
            log.warn("Purging idempotency table '{}' failed; it is tried again after {} more completions: {}", table, purgeEvery,
                    e.getMessage());
        }
        return deleted;
    }

    /**
     * A calendar in UTC for every timestamp read and written: the column holds UTC whatever the JVM's time zone, so a
     * daylight-saving change never moves a claim's age and replicas in other zones agree.
     */
    private static java.util.Calendar utc() {
        return java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone(java.time.ZoneOffset.UTC));
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

        /**
         * The table; default {@code switchboard_processed}; letters, digits and '_' (optionally schema-qualified).
         *
         * @param name the table's name
         * @return this builder
         */
        public Builder table(String name) {
            if (name == null || !TABLE.matcher(name).matches()) {
                throw new ConfigurationException("Idempotency table name '" + name + "' is not valid: use letters, digits and '_',"
                        + " optionally schema.table, such as switchboard_processed");
            }
            this.table = name;
            return this;
        }

        /**
         * How long done ids are kept; default 7 days; at least 1 s.
         *
         * @param retention how long done ids are kept
         * @return this builder
         */
        public Builder retention(Duration retention) {
            this.retention = positive("retention", retention);
            return this;
        }

        /**
         * After how long an unfinished claim is taken over; default 5 min; at least 1 s.
         *
         * @param timeout how long a claim may stay unfinished
         * @return this builder
         */
        public Builder claimTimeout(Duration timeout) {
            this.claimTimeout = positive("claim-timeout", timeout);
            return this;
        }

        /**
         * The most done rows kept; default 10,000,000.
         *
         * @param rows the most done rows kept
         * @return this builder
         */
        public Builder maxRows(long rows) {
            if (rows < 1) {
                throw new ConfigurationException("Idempotency max-rows is " + rows + " but must be at least 1, such as 1000000");
            }
            this.maxRows = rows;
            return this;
        }

        /**
         * Purge after every this many completions; default 1000.
         *
         * @param completions completions between purges
         * @return this builder
         */
        public Builder purgeEvery(int completions) {
            if (completions < 1) {
                throw new ConfigurationException("Idempotency purge-every is " + completions + " but must be at least 1, such as 1000");
            }
            this.purgeEvery = completions;
            return this;
        }

        /**
         * Create the table if it does not exist (CREATE TABLE IF NOT EXISTS); default true.
         *
         * @param create false when the table is made otherwise
         * @return this builder
         */
        public Builder createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /**
         * The clock (tests); default UTC.
         *
         * @param clock the clock
         * @return this builder
         */
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
         * {@return the store; creates the table when asked}
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
