package io.switchboard.outbox;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog and the oldest unsent age, read every stats interval on a thread of its own (so they move while the
 * relay waits on a broker), as gauges and as health; sent rows past their retention are purged there too.
 */
final class OutboxStats {

    private static final Logger log = LoggerFactory.getLogger(OutboxStats.class);

    private final Outbox outbox;
    private volatile long backlog;
    private volatile long oldestMicros; // 0: none
    private volatile String failure;
    private volatile long parked;
    private volatile String lastParkedError;
    private final java.util.Map<String, io.micrometer.core.instrument.Counter> parkedCounters =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Map<String, io.micrometer.core.instrument.Counter> heldCounters =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final List<Meter> registered = new ArrayList<>();
    private ScheduledExecutorService timer;
    private long lastPurge;
    private final Object reading = new Object();

    OutboxStats(Outbox outbox) {
        this.outbox = outbox;
    }

    synchronized void start() {
        MeterRegistry registry = outbox.meters;
        if (registry != null && registered.isEmpty()) {
            registered.add(Gauge.builder("switchboard.outbox.backlog", this, s -> s.backlog)
                    .description("Rows of the outbox table not sent yet").tag("table", outbox.table).baseUnit("messages")
                    .register(registry));
            registered.add(Gauge.builder("switchboard.outbox.oldest.age", this, s -> s.oldestAge().toMillis() / 1000.0)
                    .description("Age of the oldest row of the outbox table not sent yet").tag("table", outbox.table)
                    .baseUnit("seconds").register(registry));
            registered.add(Gauge.builder("switchboard.outbox.parked", this, st -> st.parked)
                    .description("Messages the relay parked in <table>_parked after maxAttempts refusals; Outbox.redrive()"
                            + " sends them again").tag("table", outbox.table).baseUnit("messages").register(registry));
        }
        timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("switchboard-outbox-stats[" + outbox.table + "]"));
        long every = outbox.statsInterval.toMillis();
        timer.scheduleWithFixedDelay(this::readQuietly, 0, every, TimeUnit.MILLISECONDS);
    }

    synchronized void stop() {
        if (timer != null) {
            timer.shutdownNow();
            try {
                if (!timer.awaitTermination(10, TimeUnit.SECONDS)) {
                    log.warn("Outbox '{}': the stats reader did not stop within 10 s", outbox.table);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            timer = null;
        }
        MeterRegistry registry = outbox.meters;
        if (registry != null) {
            registered.forEach(registry::remove);
            parkedCounters.values().forEach(registry::remove);
            heldCounters.values().forEach(registry::remove);
        }
        registered.clear();
        parkedCounters.clear();
        heldCounters.clear();
    }

    long parked() {
        return parked;
    }

    /** Counts a message the relay parked, by destination. */
    void parkedNow(String destination) {
        MeterRegistry registry = outbox.meters;
        if (registry != null) {
            parkedCounters.computeIfAbsent(destination, d -> io.micrometer.core.instrument.Counter
                    .builder("switchboard.outbox.parked.total").description("Messages the relay parked after maxAttempts"
                            + " refusals").tag("table", outbox.table).tag("destination", d).baseUnit("messages")
                    .register(registry)).increment();
        }
    }

    /** Counts a message the relay held after a failure (sent again after its back-off), by destination. */
    void heldNow(String destination) {
        MeterRegistry registry = outbox.meters;
        if (registry != null) {
            heldCounters.computeIfAbsent(destination, d -> io.micrometer.core.instrument.Counter
                    .builder("switchboard.outbox.held").description("Sends the relay held back after a failure: the"
                            + " message and its key's later ones wait for its back-off").tag("table", outbox.table)
                    .tag("destination", d).baseUnit("messages").register(registry)).increment();
        }
    }

    void readNow() {
        readQuietly();
    }

    long backlog() {
        return backlog;
    }

    Duration oldestAge() {
        long oldest = oldestMicros;
        if (oldest == 0) {
            return Duration.ZERO;
        }
        long age = Outbox.micros(Instant.now()) - oldest;
        return age <= 0 ? Duration.ZERO : Duration.ofNanos(age * 1000);
    }

    BrokerHealth health() {
        readQuietly();
        String failed = failure;
        if (failed != null) {
            return BrokerHealth.down("outbox table '" + outbox.table + "' cannot be read: " + failed);
        }
        Duration age = oldestAge();
        String figures = "backlog " + backlog + " rows, oldest unsent " + age.toMillis() + " ms";
        long parkedNow = parked;
        if (parkedNow > 0) {
            return BrokerHealth.degraded(figures + "; " + parkedNow + " message(s) parked in '" + outbox.table + "_parked'"
                    + " after " + outbox.maxAttempts + " refusals (last: " + lastParkedError + "); mend the cause and call"
                    + " Outbox.redrive()");
        }
        if (age.compareTo(outbox.degradedAfter) > 0) {
            return BrokerHealth.degraded(figures + " (over " + outbox.degradedAfter.toMillis() + " ms: the relay is stopped or"
                    + " a broker refuses its messages; they wait in '" + outbox.table + "')");
        }
        return BrokerHealth.up(figures);
    }

    private void readQuietly() {
        synchronized (reading) {
            read();
        }
    }

    private void read() {
        Connection c = null;
        boolean autoCommit = true;
        int isolation = Connection.TRANSACTION_READ_COMMITTED;
        try {
            c = outbox.dataSource.getConnection();
            autoCommit = c.getAutoCommit();
            isolation = c.getTransactionIsolation();
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*), min(COALESCE(written_micros, created_micros)) FROM " + outbox.table
                    + " WHERE sent_micros IS NULL AND bucket >= 0"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                backlog = rs.getLong(1);
                long oldest = rs.getLong(2);
                oldestMicros = rs.wasNull() ? 0 : oldest;
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*), max(parked_micros) FROM " + outbox.table
                    + "_parked WHERE bucket >= 0"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                long count = rs.getLong(1);
                long newest = rs.getLong(2);
                if (count > 0 && (count != parked || lastParkedError == null)) {
                    try (PreparedStatement last = c.prepareStatement("SELECT message_id, destination, last_error FROM "
                            + outbox.table + "_parked WHERE parked_micros = ?")) {
                        last.setLong(1, newest);
                        try (ResultSet lr = last.executeQuery()) {
                            if (lr.next()) {
                                lastParkedError = "message " + lr.getString(1) + " to '" + lr.getString(2) + "': "
                                        + lr.getString(3);
                            }
                        }
                    }
                }
                parked = count;
            }
            failure = null;
            purge(c);
        } catch (SQLException | RuntimeException e) {
            if (failure == null) {
                log.warn("Outbox '{}': could not read the backlog: {}", outbox.table, e.getMessage());
            }
            failure = e.getMessage();
        } finally {
            if (c != null) {
                Sessions.handBack(c, autoCommit, isolation, outbox.table);
            }
        }
    }

    private void purge(Connection c) throws SQLException {
        Duration retention = outbox.retention;
        long now = System.currentTimeMillis();
        if (retention.isZero() || now - lastPurge < 60_000) {
            return;
        }
        lastPurge = now;
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + outbox.table
                + " WHERE sent_micros IS NOT NULL AND sent_micros < ?")) {
            ps.setLong(1, Outbox.micros(Instant.now().minus(retention)));
            int purged = ps.executeUpdate();
            if (purged > 0) {
                log.debug("Outbox '{}': purged {} sent rows older than {}", outbox.table, purged, retention);
            }
        }
    }
}
