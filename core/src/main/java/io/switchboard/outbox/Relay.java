package io.switchboard.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.internal.codec.Codecs;
import io.switchboard.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: one thread that, in a loop, takes the buckets of the oldest unsent rows it can lock ({@code FOR UPDATE
 * SKIP LOCKED} on {@code <table>_lock}), sends their rows in id order through the Switchboard's publishers, waits for
 * every acknowledgement, deletes (or marks) the acknowledged rows and commits, which frees the buckets. Busy: the next
 * batch at once. Idle: waits for a notification (PostgreSQL) or polls, from {@code pollMin} doubling to
 * {@code pollMax}. A batch not fully acknowledged: back-off from {@code backoffMin} doubling to {@code backoffMax}.
 * Every wait is bounded and checks for {@link #stop()}; the thread is never interrupted (an interrupted JDBC call can
 * close an embedded database's files).
 */
final class Relay {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    private static final int NONE = -1;

    private enum Outcome { SENT, EMPTY, HELD_ELSEWHERE, FAILED }

    private final Outbox outbox;
    private final Thread thread;
    private final String anySql;
    private final String lockSql;
    private final String rowsSql;
    private final String doneSql;
    private final String doneArraySql;
    private final int doneChunk = 100;
    private final Map<String, Publisher<byte[]>> publishers = new HashMap<>();
    private final Map<String, Codec<byte[]>> codecs = new HashMap<>();
    private final Map<String, Counter> sentCounters = new HashMap<>();
    private final Map<String, Timer> latencies = new HashMap<>();
    private volatile boolean stopping;
    private Connection connection;
    private PreparedStatement lockStatement;
    private PreparedStatement rowsStatement;
    private PreparedStatement anyStatement;
    private PreparedStatement doneStatement;
    private PgWakeup wakeup;
    private boolean wakeupFailed;
    private int failures;
    private long failingSince;

    Relay(Outbox outbox, String suffix) {
        this.outbox = outbox;
        String t = outbox.table;
        int claim = outbox.bucketsPerClaim;
        String in = "?" + ", ?".repeat(claim - 1);
        this.anySql = "SELECT id FROM " + t + " WHERE sent_micros IS NULL LIMIT 1";
        // the free buckets among those of the oldest unsent rows, locked in one round trip (the derived table is for
        // MariaDB, which takes no LIMIT in an IN subquery); the subquery's rows are read, not locked
        this.lockSql = "SELECT bucket FROM " + t + "_lock WHERE bucket IN (SELECT bucket FROM (SELECT bucket FROM " + t
                + " WHERE sent_micros IS NULL ORDER BY id LIMIT ?) oldest) ORDER BY bucket LIMIT ? FOR UPDATE SKIP LOCKED";
        this.rowsSql = "SELECT id, bucket, destination, message_key, message_id, content_type, headers, payload, created_micros,"
                + " deliver_at_millis FROM " + t + " WHERE sent_micros IS NULL AND bucket IN (" + in + ") ORDER BY id LIMIT ?";
        String ids = "?" + ", ?".repeat(doneChunk - 1);
        this.doneSql = outbox.retention.isZero() ? "DELETE FROM " + t + " WHERE id IN (" + ids + ")"
                : "UPDATE " + t + " SET sent_micros = ? WHERE id IN (" + ids + ")";
        // PostgreSQL: a batch's ids in one array parameter, one statement whatever the batch's size
        this.doneArraySql = outbox.retention.isZero() ? "DELETE FROM " + t + " WHERE id = ANY (?)"
                : "UPDATE " + t + " SET sent_micros = ? WHERE id = ANY (?)";
        this.thread = DaemonThreads.newThread("switchboard-outbox-relay[" + t + "]" + suffix, this::run);
    }

    void start() {
        thread.start();
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    void requestStop() {
        stopping = true;
        LockSupport.unpark(thread);
    }

    void stop() {
        requestStop();
        long deadline = outbox.sendTimeout.toMillis() + 10_000;
        try {
            thread.join(deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("Outbox '{}': the relay did not stop within {} ms; it stops after its current statement", outbox.table,
                    deadline);
        }
    }

    private void run() {
        long poll = outbox.pollMin.toNanos();
        long backoff = 0;
        while (!stopping) {
            Outcome outcome;
            try {
                connect();
                outcome = cycle();
            } catch (SQLException | RuntimeException e) {
                outcome = Outcome.FAILED;
                noteFailure("the database refused the relay: " + e.getMessage(), e);
                closeConnection();
            }
            switch (outcome) {
                case SENT -> {
                    backoff = 0;
                    poll = outbox.pollMin.toNanos();
                }
                case HELD_ELSEWHERE -> pause(outbox.pollMin.toNanos());
                case EMPTY -> {
                    if (awaitWork(poll)) {
                        poll = outbox.pollMin.toNanos();
                    } else {
                        poll = Math.min(poll * 2, outbox.pollMax.toNanos());
                    }
                }
                case FAILED -> {
                    backoff = backoff == 0 ? outbox.backoffMin.toNanos() : Math.min(backoff * 2, outbox.backoffMax.toNanos());
                    pause(backoff);
                }
            }
        }
        closeConnection();
        for (Publisher<byte[]> p : publishers.values()) {
            try {
                p.close();
            } catch (RuntimeException e) {
                log.debug("Outbox '{}': closing a publisher failed: {}", outbox.table, e.toString());
            }
        }
        publishers.clear();
        MeterRegistry registry = outbox.meters;
        if (registry != null) {
            sentCounters.values().forEach(registry::remove);
            latencies.values().forEach(registry::remove);
        }
    }

    private void connect() throws SQLException {
        if (connection != null) {
            return;
        }
        Connection c = outbox.dataSource.getConnection();
        try {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            if (outbox.dialect == Dialect.POSTGRESQL) {
                // the relay's deletes need not wait for their WAL flush: one lost in a database crash only has its rows
                // sent again (at-least-once, by id), so each batch is spared an fsync
                try (java.sql.Statement s = c.createStatement()) {
                    s.execute("SET synchronous_commit = off");
                }
            }
            c.setAutoCommit(false);
            // kept for the connection's life: a driver prepares them on the server once, not every batch
            lockStatement = c.prepareStatement(lockSql);
            rowsStatement = c.prepareStatement(rowsSql);
            anyStatement = c.prepareStatement(anySql);
            doneStatement = c.prepareStatement(outbox.dialect == Dialect.POSTGRESQL ? doneArraySql : doneSql);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        connection = c;
        if (outbox.notifyTrigger && wakeup == null && !wakeupFailed) {
            try {
                wakeup = PgWakeup.listen(outbox.dataSource.getConnection(), Dialect.channel(outbox.table));
            } catch (SQLException | RuntimeException | LinkageError e) {
                wakeupFailed = true;
                log.info("Outbox '{}': cannot LISTEN for new rows ({}); the relay polls every {} to {}", outbox.table,
                        e.toString(), outbox.pollMin, outbox.pollMax);
            }
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // closing anyway
            }
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
            connection = null;
            lockStatement = null;
            rowsStatement = null;
            anyStatement = null;
            doneStatement = null;
        }
        if (wakeup != null) {
            wakeup.close();
            wakeup = null;
        }
    }

    private Outcome cycle() throws SQLException {
        Connection c = connection;
        long began = System.nanoTime();
        boolean done = false;
        try {
            List<Integer> locked = new ArrayList<>(outbox.bucketsPerClaim);
            PreparedStatement lock = lockStatement;
            lock.setInt(1, outbox.batchSize);
            lock.setInt(2, outbox.bucketsPerClaim);
            try (ResultSet rs = lock.executeQuery()) {
                while (rs.next()) {
                    locked.add(rs.getInt(1));
                }
            }
            if (locked.isEmpty()) {
                boolean any;
                try (ResultSet rs = anyStatement.executeQuery()) {
                    any = rs.next();
                }
                c.commit();
                done = true;
                return any ? Outcome.HELD_ELSEWHERE : Outcome.EMPTY;
            }
            List<Row> rows = new ArrayList<>(outbox.batchSize);
            PreparedStatement select = rowsStatement;
            bindBuckets(select, locked, 1);
            select.setInt(outbox.bucketsPerClaim + 1, outbox.batchSize);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(rs));
                }
            }
            if (rows.isEmpty()) {
                c.commit();
                done = true;
                return Outcome.EMPTY;
            }
            long read = System.nanoTime();
            boolean allSent = send(c, rows);
            long sent = System.nanoTime();
            c.commit();
            done = true;
            if (log.isTraceEnabled()) {
                long end = System.nanoTime();
                log.trace("Outbox '{}': {} rows of {} buckets: read {} us, sent and deleted {} us, commit {} us", outbox.table,
                        rows.size(), locked.size(), (read - began) / 1000, (sent - read) / 1000, (end - sent) / 1000);
            }
            return allSent ? Outcome.SENT : Outcome.FAILED;
        } finally {
            if (!done) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // the connection is closed next
                }
            }
        }
    }

    private void bindBuckets(PreparedStatement ps, java.util.Collection<Integer> buckets, int first) throws SQLException {
        int i = first;
        for (int b : buckets) {
            ps.setInt(i++, b);
        }
        while (i < first + outbox.bucketsPerClaim) {
            ps.setInt(i++, NONE);
        }
    }

    /** Sends the rows, waits for their acknowledgements, deletes (or marks) the ones that may go; true when all went. */
    private boolean send(Connection c, List<Row> rows) throws SQLException {
        int n = rows.size();
        @SuppressWarnings("unchecked")
        CompletableFuture<PublishReceipt>[] futures = new CompletableFuture[n];
        long[] ackedMillis = new long[n];
        for (int i = 0; i < n; i++) {
            Row row = rows.get(i);
            try {
                int index = i;
                // the dependent future completes after its action ran, so the time is there once get() returns
                futures[i] = publisher(row).publish(row.message()).toCompletableFuture()
                        .whenComplete((receipt, error) -> ackedMillis[index] = System.currentTimeMillis());
            } catch (RuntimeException e) {
                futures[i] = CompletableFuture.failedFuture(e);
            }
        }
        long deadline = System.nanoTime() + outbox.sendTimeout.toNanos();
        Throwable firstError = null;
        Row firstFailed = null;
        boolean[] ok = new boolean[n];
        for (int i = 0; i < n; i++) {
            try {
                futures[i].get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                ok[i] = true;
            } catch (ExecutionException e) {
                if (firstError == null) {
                    firstError = e.getCause();
                    firstFailed = rows.get(i);
                }
            } catch (TimeoutException e) {
                if (firstError == null) {
                    firstError = new TimeoutException("no acknowledgement within " + outbox.sendTimeout);
                    firstFailed = rows.get(i);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (firstError == null) {
                    firstError = e;
                    firstFailed = rows.get(i);
                }
            }
        }
        // a bucket's rows after its first failure stay too, so its keys are sent again in order from there
        Map<Integer, Long> firstFailure = new HashMap<>();
        for (int i = 0; i < n; i++) {
            if (!ok[i]) {
                firstFailure.putIfAbsent(rows.get(i).bucket, rows.get(i).id);
            }
        }
        long[] gone = new long[n];
        int count = 0;
        for (int i = 0; i < n; i++) {
            Row row = rows.get(i);
            Long failedFrom = firstFailure.get(row.bucket);
            if (ok[i] && (failedFrom == null || row.id < failedFrom)) {
                gone[count++] = row.id;
            }
        }
        markDone(c, gone, count);
        for (int i = 0; i < n; i++) {
            Row row = rows.get(i);
            Long failedFrom = firstFailure.get(row.bucket);
            if (ok[i] && (failedFrom == null || row.id < failedFrom)) {
                record(row, ackedMillis[i]);
            }
        }
        if (firstError == null) {
            if (failures > 0) {
                log.info("Outbox '{}': the relay sends again after {} failed batches ({} ms)", outbox.table, failures,
                        System.currentTimeMillis() - failingSince);
                failures = 0;
            }
            return true;
        }
        noteFailure((n - count) + " of " + n + " messages not acknowledged; first: " + firstFailed.messageId + " to '"
                + firstFailed.destination + "': " + firstError, firstError);
        return false;
    }

    private void noteFailure(String what, Throwable cause) {
        if (failures++ == 0) {
            failingSince = System.currentTimeMillis();
            log.warn("Outbox '{}': {}; the rows wait in the table and the relay tries again with back-off (from {} to {})",
                    outbox.table, what, outbox.backoffMin, outbox.backoffMax);
        } else if (cause instanceof io.switchboard.InvalidMessageException
                || cause instanceof io.switchboard.InvalidDestinationException
                || cause instanceof io.switchboard.UnsupportedCapabilityException) {
            log.error("Outbox '{}': {}; the message's bucket waits until it can be sent (change the route, or the message's"
                    + " row)", outbox.table, what);
        } else {
            log.debug("Outbox '{}': still failing ({} batches): {}", outbox.table, failures, what);
        }
    }

    private void markDone(Connection c, long[] ids, int count) throws SQLException {
        if (count == 0) {
            return;
        }
        long now = Outbox.micros(Instant.now());
        boolean mark = !outbox.retention.isZero();
        int offset = mark ? 1 : 0;
        PreparedStatement ps = doneStatement;
        if (outbox.dialect == Dialect.POSTGRESQL) {
            Long[] boxed = new Long[count];
            for (int k = 0; k < count; k++) {
                boxed[k] = ids[k];
            }
            if (mark) {
                ps.setLong(1, now);
            }
            ps.setArray(offset + 1, c.createArrayOf("bigint", boxed));
            ps.executeUpdate();
            return;
        }
        for (int from = 0; from < count; from += doneChunk) {
            if (mark) {
                ps.setLong(1, now);
            }
            for (int j = 0; j < doneChunk; j++) {
                int k = from + j;
                ps.setLong(offset + j + 1, k < count ? ids[k] : ids[from]);
            }
            ps.addBatch();
        }
        ps.executeBatch();
    }

    private void record(Row row, long ackedMillis) {
        MeterRegistry registry = outbox.meters;
        if (registry == null) {
            return;
        }
        Counter counter = sentCounters.get(row.destination);
        if (counter == null) {
            counter = Counter.builder("switchboard.outbox.relayed").description("Messages the relay sent and the broker acknowledged")
                    .tag("table", outbox.table).tag("destination", row.destination).baseUnit("messages").register(registry);
            sentCounters.put(row.destination, counter);
        }
        counter.increment();
        Timer timer = latencies.get(row.destination);
        if (timer == null) {
            timer = Timer.builder("switchboard.outbox.relay.latency")
                    .description("From a message's write to the outbox to its broker's acknowledgement")
                    .tag("table", outbox.table).tag("destination", row.destination).publishPercentileHistogram()
                    .register(registry);
            latencies.put(row.destination, timer);
        }
        long latency = ackedMillis - row.createdMicros / 1000;
        timer.record(Math.max(0, latency), TimeUnit.MILLISECONDS);
    }

    private Publisher<byte[]> publisher(Row row) {
        String ct = row.contentType;
        String name = ct == null ? row.destination : row.destination + '\u0000' + ct;
        Publisher<byte[]> p = publishers.get(name);
        if (p == null) {
            Codec<byte[]> codec = ct == null ? Codec.bytes() : codecs.computeIfAbsent(ct, Codecs::bytesAs);
            p = outbox.switchboard.publisher(row.destination, codec).delivery(outbox.delivery).build();
            publishers.put(name, p);
        }
        return p;
    }

    /** Waits for work up to {@code nanos}; true when woken by a notification (or a local publish). */
    private boolean awaitWork(long nanos) {
        if (wakeup != null) {
            long deadline = System.nanoTime() + outbox.pollMax.toNanos();
            try {
                while (!stopping) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    if (wakeup.await((int) Math.min(250, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))))) {
                        return true;
                    }
                }
            } catch (SQLException e) {
                log.info("Outbox '{}': the LISTEN connection failed ({}); it is opened again", outbox.table, e.getMessage());
                wakeup.close();
                wakeup = null;
            }
            return false;
        }
        pause(nanos);
        return false;
    }

    private void pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!stopping) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(250)));
        }
    }

    /** A row read for sending. */
    private static final class Row {
        final long id;
        final int bucket;
        final String destination;
        final String key;
        final String messageId;
        final String contentType;
        final String headers;
        final byte[] payload;
        final long createdMicros;
        final long deliverAtMillis;

        Row(ResultSet rs) throws SQLException {
            id = rs.getLong(1);
            bucket = rs.getInt(2);
            destination = rs.getString(3);
            key = rs.getString(4);
            messageId = rs.getString(5);
            contentType = rs.getString(6);
            headers = rs.getString(7);
            payload = rs.getBytes(8);
            createdMicros = rs.getLong(9);
            long due = rs.getLong(10);
            deliverAtMillis = rs.wasNull() ? 0 : due;
        }

        Message<byte[]> message() {
            Message.Builder<byte[]> b = Message.builder(payload).key(key).id(messageId).timestamp(Outbox.fromMicros(createdMicros));
            if (headers != null) {
                b.headers(HeaderText.decode(headers));
            }
            if (deliverAtMillis > System.currentTimeMillis()) {
                b.deliverAt(Instant.ofEpochMilli(deliverAtMillis));
            }
            return b.build();
        }

        @Override
        public String toString() {
            return "Row[" + id + ", bucket " + bucket + ", " + destination + ", " + messageId + "]";
        }
    }
}
