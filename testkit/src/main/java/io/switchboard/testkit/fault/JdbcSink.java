package io.switchboard.testkit.fault;

import io.switchboard.JdbcIdempotencyStore;
import io.switchboard.MessageHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The database side of an exactly-once fault test: an output table the handler writes each payload
 * into, and a {@link JdbcIdempotencyStore} table, both named uniquely per run, on a JDBC database
 * (the local PostgreSQL in the adapters' tests; its driver must be on the classpath). The handler
 * ({@link #handler}) inserts the payload and marks the id done with
 * {@link JdbcIdempotencyStore#completeIn} in one transaction, so the output table holds each
 * handled message once when exactly-once holds, and shows every duplicate when it does not (the
 * table has no unique key). {@link #close()} drops both tables.
 *
 * <p>A {@link ChildConsumer} started with {@link ChildConsumer#startExactlyOnce} writes through the
 * same sink from its own JVM (the sink travels as system properties).
 */
public final class JdbcSink implements AutoCloseable {

    static final String URL_PROPERTY = "switchboard.child.jdbc.url";
    static final String USER_PROPERTY = "switchboard.child.jdbc.user";
    static final String RUN_PROPERTY = "switchboard.child.jdbc.run";
    static final String CLAIM_TIMEOUT_PROPERTY = "switchboard.child.jdbc.claim-timeout-ms";

    /** Where the tables are, their run suffix, and the store's claim timeout. */
    private record Where(String url, String user, String run, Duration claimTimeout) {}

    private final Where where;
    private final String url;
    private final PooledDataSource dataSource;

    private JdbcSink(Where where) {
        this.where = where;
        this.url = where.url();
        this.dataSource = new PooledDataSource(where.url(), where.user());
    }

    /**
     * {@return a sink with fresh tables on the database at {@code url}}
     *
     * @param url the JDBC URL
     * @param user the database user (also its password, as on the local PostgreSQL)
     * @param claimTimeout the idempotency store's claim timeout: how long a killed consumer's claims block their ids
     * @throws IllegalStateException when the database cannot be reached, naming the URL and how to start PostgreSQL
     */
    public static JdbcSink create(String url, String user, Duration claimTimeout) {
        JdbcSink sink = new JdbcSink(new Where(url, user, UUID.randomUUID().toString().replace("-", "").substring(0, 10),
                claimTimeout));
        try (Connection c = sink.dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + sink.outputTable() + " (payload VARCHAR(255) NOT NULL, message_id VARCHAR(255) NOT NULL)");
        } catch (SQLException e) {
            sink.dataSource.close();
            throw new IllegalStateException("The exactly-once fault test needs the database at " + url + " (user " + user
                    + "); for the local PostgreSQL run .ci/postgres-up.sh or 'pg_ctlcluster --skip-systemctl-redirect "
                    + "$(ls /etc/postgresql) main start' (" + e.getMessage() + ")", e);
        }
        return sink;
    }

    /** The sink a parent passed to this (child) JVM, or null when none was. */
    static JdbcSink fromSystemProperties() {
        String url = System.getProperty(URL_PROPERTY);
        if (url == null) {
            return null;
        }
        return new JdbcSink(new Where(url, System.getProperty(USER_PROPERTY), System.getProperty(RUN_PROPERTY),
                Duration.ofMillis(Long.parseLong(System.getProperty(CLAIM_TIMEOUT_PROPERTY)))));
    }

    /** The JVM options that pass this sink to a child. */
    List<String> systemProperties() {
        return List.of("-D" + URL_PROPERTY + "=" + url, "-D" + USER_PROPERTY + "=" + where.user(),
                "-D" + RUN_PROPERTY + "=" + where.run(), "-D" + CLAIM_TIMEOUT_PROPERTY + "=" + where.claimTimeout().toMillis());
    }

    /** {@return the output table: one row per handled payload (no unique key, so duplicates show)} */
    public String outputTable() {
        return "eos_out_" + where.run();
    }

    /** {@return the idempotency store's table} */
    public String idempotencyTable() {
        return "eos_idem_" + where.run();
    }

    /** {@return a pooled data source on the database} */
    public DataSource dataSource() {
        return dataSource;
    }

    /** {@return a new store on the idempotency table (creating it if needed), with the sink's claim timeout} */
    public JdbcIdempotencyStore store() {
        return JdbcIdempotencyStore.builder(dataSource).table(idempotencyTable()).claimTimeout(where.claimTimeout()).build();
    }

    /**
     * {@return a handler that, in one transaction, inserts the payload, waits {@code sleepMillis} (a kill lands
     * mid-transaction then), marks the id done with {@code store.completeIn} and commits; a delivery whose id
     * another one completed first rolls back}
     *
     * @param store the idempotency store on this sink's table
     * @param sleepMillis how long the handler takes per message, in milliseconds
     */
    public MessageHandler<String> handler(JdbcIdempotencyStore store, long sleepMillis) {
        return handler(store, sleepMillis, null);
    }

    /**
     * {@link #handler(JdbcIdempotencyStore, long)} that, once file {@code hold} exists, stops inside
     * its next transaction (after the insert, before the done mark) until the JVM is killed, and
     * creates {@code <hold>.held} to say so: a kill then surely lands mid-transaction with the id
     * claimed and not done.
     */
    MessageHandler<String> handler(JdbcIdempotencyStore store, long sleepMillis, Path hold) {
        String insert = "INSERT INTO " + outputTable() + " (payload, message_id) VALUES (?, ?)";
        return (message, context) -> {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement p = c.prepareStatement(insert)) {
                    p.setString(1, message.payload());
                    p.setString(2, message.id());
                    p.executeUpdate();
                }
                if (sleepMillis > 0) {
                    Thread.sleep(sleepMillis);
                }
                if (hold != null && Files.exists(hold)) {
                    holdUntilKilled(hold);
                }
                if (store.completeIn(c, context.idempotencyScope(), message.id())) {
                    c.commit();
                } else {
                    c.rollback();
                }
            }
        };
    }

    private static synchronized void holdUntilKilled(Path hold) throws IOException, InterruptedException {
        Path held = Path.of(hold + ".held");
        if (!Files.exists(held)) {
            Files.createFile(held);
        }
        while (true) {
            Thread.sleep(1000); // until kill -9; synchronized: any other handler thread stops at the monitor
        }
    }

    /** {@return every row of the output table: the payloads handled, duplicates included, in no particular order} */
    public List<String> handledPayloads() {
        List<String> payloads = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT payload FROM " + outputTable())) {
            while (rs.next()) {
                payloads.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read " + outputTable() + " at " + url + ": " + e.getMessage(), e);
        }
        return payloads;
    }

    /**
     * {@return the number of rows of the idempotency table in state {@code state} ('C' claimed, 'D' done)}
     *
     * @param state {@code C} or {@code D}
     */
    public long idempotencyRows(String state) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement p = c.prepareStatement("SELECT count(*) FROM " + idempotencyTable() + " WHERE state = ?")) {
            p.setString(1, state);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read " + idempotencyTable() + " at " + url + ": " + e.getMessage(), e);
        }
    }

    /** Drops both tables and closes the pooled connections. */
    @Override
    public void close() {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + outputTable());
            s.execute("DROP TABLE IF EXISTS " + idempotencyTable());
        } catch (SQLException e) {
            throw new IllegalStateException("Could not drop " + outputTable() + " and " + idempotencyTable() + " at " + url
                    + ": " + e.getMessage(), e);
        } finally {
            dataSource.close();
        }
    }
}
