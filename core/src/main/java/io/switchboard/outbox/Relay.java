package io.switchboard.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.InvalidDestinationException;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.internal.codec.Codecs;
import io.switchboard.internal.envelope.MessageAccess;
import io.switchboard.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: one thread that, in a loop, locks free buckets that have unsent rows ({@code FOR UPDATE SKIP LOCKED} on
 * {@code <table>_lock}, taken round-robin from a cursor so every pending bucket has its turn), reads their rows in id
 * order up to the batch's rows and bytes, sends them, deletes (or marks) the acknowledged rows and commits, which frees
 * the buckets.
 *
 * <p>Per-key order through failures: a key's rows in a batch are sent one after the other, each once the previous one
 * was acknowledged, while different keys are in flight at once; a row that fails ends its key's part of the batch (its
 * later rows are not sent), and is held: its {@code retry_at_millis} is set with back-off, so later batches skip its
 * key (and only its key) until then. A row refused for itself (invalid, too large, a destination or capability its
 * route's broker lacks, a codec error) {@code maxAttempts} times is moved to {@code <table>_parked} with its error, and
 * the key's later rows go on. A failure of the broker (time-out, refusal, connection) holds the row without parking it.
 *
 * <p>Busy: the next batch at once. Idle: waits for a notification (PostgreSQL) or polls, from {@code pollMin} doubling
 * to {@code pollMax}. A batch with nothing acknowledged: back-off from {@code backoffMin} doubling to {@code
 * backoffMax}. Every wait is bounded and checks for {@link #stop()}; the thread is never interrupted (an interrupted
 * JDBC call can close an embedded database's files), survives any {@link Throwable} (its connection handed back first)
 * and never changes a pooled connection's session: the relay's {@code synchronous_commit = off} is {@code SET LOCAL},
 * and auto-commit and isolation are put back before the connection goes back to the pool.
 */
final class Relay {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    private static final int NONE = -1;
    private static final int MAX_EXCLUDED_KEYS = 100;
    private static final int MAX_ERROR = 1000;
    /**
     * The relay's transaction settings on PostgreSQL, for that transaction only ({@code SET LOCAL}): no WAL flush wait
     * at commit, and plans that probe the indexes bucket by bucket and read rows in id order whatever the table's
     * statistics say (an outbox table swings from empty to a large backlog faster than autovacuum analyzes it, and a
     * plan made for an empty table scans the whole backlog each batch).
     */
    private static final String PG_LOCAL_SETTINGS = "SET LOCAL synchronous_commit = off; SET LOCAL enable_mergejoin = off;"
            + " SET LOCAL enable_hashjoin = off; SET LOCAL enable_material = off; SET LOCAL enable_sort = off;"
            + " SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off";

    private enum Outcome { SENT, EMPTY, HELD_ELSEWHERE, WAITING, FAILED }

    private final Outbox outbox;
    private final Thread thread;
    private final String anySql;
    private final String lockFromSql;
    private final String lockBeforeSql;
    private final String rowsSql;
    private final String payloadSql;
    private final String payloadArraySql;
    private final String doneSql;
    private final String doneArraySql;
    private final String holdSql;
    private final String parkSql;
    private final String unparkDeleteSql;
    private final int chunk = 100;
    private final Map<String, Publisher<byte[]>> publishers = new HashMap<>();
    private final Map<String, Codec<byte[]>> codecs = new HashMap<>();
    private final Map<String, Counter> sentCounters = new HashMap<>();
    private final Map<String, Timer> latencies = new HashMap<>();
    private volatile boolean stopping;
    private Connection connection;
    private boolean originalAutoCommit;
    private int originalIsolation;
    private PreparedStatement lockFromStatement;
    private PreparedStatement lockBeforeStatement;
    private PreparedStatement rowsStatement;
    private PreparedStatement payloadStatement;
    private PreparedStatement anyStatement;
    private PreparedStatement doneStatement;
    private int cursor;
    /** The last batch had a failure of the broker (not of a message itself). */
    private boolean brokerFailed;
    private int failures;
    private long failingSince;

    Relay(Outbox outbox, String suffix) {
        this.outbox = outbox;
        String t = outbox.table;
        this.anySql = "SELECT id FROM " + t + " WHERE sent_micros IS NULL LIMIT 1";
        // the free buckets with unsent rows from the cursor on, then those before it: in bucket order, so a database
        // that locks what it reads (InnoDB) locks no more than it returns; EXISTS is one seek of (bucket, sent_micros)
        String pending = " EXISTS (SELECT 1 FROM " + t + " o WHERE o.bucket = l.bucket AND o.sent_micros IS NULL)";
        this.lockFromSql = "SELECT l.bucket FROM " + t + "_lock l WHERE l.bucket >= ? AND" + pending
                + " ORDER BY l.bucket LIMIT ? FOR UPDATE SKIP LOCKED";
        this.lockBeforeSql = "SELECT l.bucket FROM " + t + "_lock l WHERE l.bucket < ? AND" + pending
                + " ORDER BY l.bucket LIMIT ? FOR UPDATE SKIP LOCKED";
        this.rowsSql = rowsSql(0);
        this.payloadSql = "SELECT id, headers, payload FROM " + t + " WHERE id IN (?" + ", ?".repeat(chunk - 1) + ")";
        this.payloadArraySql = "SELECT id, headers, payload FROM " + t + " WHERE id = ANY (?)";
        String ids = "?" + ", ?".repeat(chunk - 1);
        this.doneSql = outbox.retention.isZero() ? "DELETE FROM " + t + " WHERE id IN (" + ids + ")"
                : "UPDATE " + t + " SET sent_micros = ? WHERE id IN (" + ids + ")";
        // PostgreSQL: a batch's ids in one array parameter, one statement whatever the batch's size
        this.doneArraySql = outbox.retention.isZero() ? "DELETE FROM " + t + " WHERE id = ANY (?)"
                : "UPDATE " + t + " SET sent_micros = ? WHERE id = ANY (?)";
        this.holdSql = "UPDATE " + t + " SET attempts = ?, retry_at_millis = ?, last_error = ? WHERE id = ?";
        this.parkSql = "INSERT INTO " + t + "_parked (id, bucket, destination, message_key, message_id, content_type, headers,"
                + " payload, created_micros, deliver_at_millis, attempts, last_error, parked_micros) SELECT id, bucket,"
                + " destination, message_key, message_id, content_type, headers, payload, created_micros, deliver_at_millis,"
                + " CAST(? AS INTEGER), CAST(? AS VARCHAR(1000)), CAST(? AS BIGINT) FROM " + t + " WHERE id = ?";
        this.unparkDeleteSql = "DELETE FROM " + t + " WHERE id = ?";
        this.cursor = ThreadLocalRandom.current().nextInt(outbox.buckets);
        this.thread = DaemonThreads.newThread("switchboard-outbox-relay[" + t + "]" + suffix, this::run);
    }

    /** The rows of the locked buckets, without their payloads; {@code excluded} keys left out (held keys). */
    private String rowsSql(int excluded) {
        String in = "?" + ", ?".repeat(outbox.bucketsPerClaim - 1);
        return "SELECT id, bucket, destination, message_key, message_id, content_type, created_micros, deliver_at_millis,"
                + " attempts, retry_at_millis, OCTET_LENGTH(payload), COALESCE(written_micros, created_micros) FROM " + outbox.table + " WHERE sent_micros IS NULL"
                + " AND bucket IN (" + in + ")"
                + (excluded == 0 ? "" : " AND (message_key IS NULL OR message_key NOT IN (?" + ", ?".repeat(excluded - 1) + "))")
                + " ORDER BY id LIMIT ?";
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
        try {
            while (!stopping) {
                try {
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
                        case WAITING -> {
                            pause(poll);
                            poll = Math.min(poll * 2, outbox.pollMax.toNanos());
                        }
                        case EMPTY, HELD_ELSEWHERE -> { // rows held by other relays: wait as when idle, woken by new rows
                            if (outbox.wakeup.await(poll, this::isStopping)) {
                                poll = outbox.pollMin.toNanos();
                            } else {
                                poll = Math.min(poll * 2, outbox.pollMax.toNanos());
                            }
                        }
                        case FAILED -> {
                            backoff = backoff == 0 ? outbox.backoffMin.toNanos()
                                    : Math.min(backoff * 2, outbox.backoffMax.toNanos());
                            pause(backoff);
                        }
                    }
                } catch (Throwable e) { // an Error: hand the connection back, and go on after the back-off
                    log.error("Outbox '{}': the relay caught {}; its connection is handed back and it goes on after the"
                            + " back-off", outbox.table, e.toString(), e);
                    closeConnection();
                    backoff = backoff == 0 ? outbox.backoffMin.toNanos() : Math.min(backoff * 2, outbox.backoffMax.toNanos());
                    pause(backoff);
                }
            }
        } finally {
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
    }

    private boolean isStopping() {
        return stopping;
    }

    private void connect() throws SQLException {
        if (connection != null) {
            return;
        }
        Connection c = outbox.dataSource.getConnection();
        try {
            originalAutoCommit = c.getAutoCommit();
            originalIsolation = c.getTransactionIsolation();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(false);
            // kept for the connection's life: a driver prepares them on the server once, not every batch
            lockFromStatement = c.prepareStatement(lockFromSql);
            lockBeforeStatement = c.prepareStatement(lockBeforeSql);
            rowsStatement = c.prepareStatement(rowsSql);
            anyStatement = c.prepareStatement(anySql);
            boolean pg = outbox.dialect == Dialect.POSTGRESQL;
            payloadStatement = c.prepareStatement(pg ? payloadArraySql : payloadSql);
            doneStatement = c.prepareStatement(pg ? doneArraySql : doneSql);
        } catch (SQLException | RuntimeException e) {
            connection = c;
            closeConnection();
            throw e;
        }
        connection = c;
    }

    /** Rolls back, puts the session back as the pool gave it, and hands the connection back. */
    private void closeConnection() {
        Connection c = connection;
        connection = null;
        lockFromStatement = null;
        lockBeforeStatement = null;
        rowsStatement = null;
        payloadStatement = null;
        anyStatement = null;
        doneStatement = null;
        if (c != null) {
            Sessions.handBack(c, originalAutoCommit, originalIsolation, outbox.table);
        }
    }

    private Outcome cycle() throws SQLException {
        Connection c = connection;
        long began = System.nanoTime();
        boolean done = false;
        try {
            if (outbox.dialect == Dialect.POSTGRESQL) {
                // for this transaction only: a relay commit lost in a database crash only has its rows sent again (by
                // id), so each batch is spared a WAL flush; the pooled connection's own settings are left as they are
                try (java.sql.Statement s = c.createStatement()) {
                    s.execute(PG_LOCAL_SETTINGS);
                }
            }
            List<Integer> locked = lock();
            if (locked.isEmpty()) {
                boolean any;
                try (ResultSet rs = anyStatement.executeQuery()) {
                    any = rs.next();
                }
                c.commit();
                done = true;
                return any ? Outcome.HELD_ELSEWHERE : Outcome.EMPTY;
            }
            long claimed = System.nanoTime();
            long now = System.currentTimeMillis();
            List<Row> rows = readRows(c, locked, now);
            long listed = System.nanoTime();
            if (rows.isEmpty()) {
                c.commit();
                done = true;
                return Outcome.WAITING; // every pending row of these buckets is held
            }
            readPayloads(c, rows);
            long read = System.nanoTime();
            int acknowledged = send(c, rows);
            long sent = System.nanoTime();
            c.commit();
            done = true;
            if (log.isTraceEnabled()) {
                long end = System.nanoTime();
                log.trace("Outbox '{}': {} rows of {} buckets: read {} us (claim {}, list {}, payloads {}), sent and deleted {}"
                        + " us, commit {} us", outbox.table, rows.size(), locked.size(), (read - began) / 1000,
                        (claimed - began) / 1000, (listed - claimed) / 1000, (read - listed) / 1000, (sent - read) / 1000,
                        (end - sent) / 1000);
            }
            // nothing acknowledged for a broker's failure: back off; a message refused for itself is held on its own
            return acknowledged > 0 || !brokerFailed ? Outcome.SENT : Outcome.FAILED;
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

    /** Locks up to {@code bucketsPerClaim} free buckets with unsent rows, from the cursor on, wrapping around. */
    private List<Integer> lock() throws SQLException {
        int claim = outbox.bucketsPerClaim;
        List<Integer> locked = new ArrayList<>(claim);
        int from = cursor;
        lockFromStatement.setInt(1, from);
        lockFromStatement.setInt(2, claim);
        try (ResultSet rs = lockFromStatement.executeQuery()) {
            while (rs.next()) {
                locked.add(rs.getInt(1));
            }
        }
        if (locked.size() < claim && from > 0) {
            lockBeforeStatement.setInt(1, from);
            lockBeforeStatement.setInt(2, claim - locked.size());
            try (ResultSet rs = lockBeforeStatement.executeQuery()) {
                while (rs.next()) {
                    locked.add(rs.getInt(1));
                }
            }
        }
        if (!locked.isEmpty()) {
            cursor = (locked.get(locked.size() - 1) + 1) % outbox.buckets; // the next batch starts after these
        }
        return locked;
    }

    /**
     * The rows to send: in id order, up to the batch's rows and bytes, leaving out held rows and every later row of a
     * held key. When held keys filled the read, it is made again without them, so one key's backlog never starves the
     * other keys of its bucket.
     */
    private List<Row> readRows(Connection c, List<Integer> locked, long now) throws SQLException {
        List<Row> read = query(rowsStatement, locked, List.of());
        Set<String> heldKeys = new HashSet<>();
        List<Row> rows = select(read, now, heldKeys);
        if (!heldKeys.isEmpty() && read.size() == outbox.batchSize && heldKeys.size() <= MAX_EXCLUDED_KEYS
                && rows.size() < outbox.batchSize / 2) {
            List<String> excluded = new ArrayList<>(heldKeys);
            try (PreparedStatement ps = c.prepareStatement(rowsSql(excluded.size()))) {
                read = query(ps, locked, excluded);
            }
            rows = select(read, now, new HashSet<>(heldKeys));
        }
        return rows;
    }

    private List<Row> query(PreparedStatement ps, List<Integer> locked, List<String> excluded) throws SQLException {
        int i = bindBuckets(ps, locked, 1);
        for (String key : excluded) {
            ps.setString(i++, key);
        }
        ps.setInt(i, outbox.batchSize);
        List<Row> read = new ArrayList<>(Math.min(outbox.batchSize, 512));
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                read.add(new Row(rs));
            }
        }
        return read;
    }

    private List<Row> select(List<Row> read, long now, Set<String> heldKeys) {
        List<Row> rows = new ArrayList<>(read.size());
        long bytes = 0;
        for (Row row : read) {
            if (row.retryAtMillis > now) {
                if (row.key != null) {
                    heldKeys.add(row.key);
                }
                continue;
            }
            if (row.key != null && heldKeys.contains(row.key)) {
                continue;
            }
            if (!rows.isEmpty() && bytes + row.length > outbox.maxBatchBytes) {
                break; // the rest waits for the next batch, in order
            }
            bytes += row.length;
            rows.add(row);
        }
        return rows;
    }

    /** Reads the payloads and headers of the rows to send. */
    private void readPayloads(Connection c, List<Row> rows) throws SQLException {
        Map<Long, Row> byId = new HashMap<>(rows.size() * 2);
        for (Row row : rows) {
            byId.put(row.id, row);
        }
        PreparedStatement ps = payloadStatement;
        if (outbox.dialect == Dialect.POSTGRESQL) {
            Long[] ids = byId.keySet().toArray(new Long[0]);
            ps.setArray(1, c.createArrayOf("bigint", ids));
            fill(ps, byId);
            return;
        }
        for (int from = 0; from < rows.size(); from += chunk) {
            for (int j = 0; j < chunk; j++) {
                int k = from + j;
                ps.setLong(j + 1, rows.get(k < rows.size() ? k : from).id);
            }
            fill(ps, byId);
        }
    }

    private static void fill(PreparedStatement ps, Map<Long, Row> byId) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Row row = byId.get(rs.getLong(1));
                if (row != null) {
                    row.headers = rs.getString(2);
                    row.payload = rs.getBytes(3);
                }
            }
        }
    }

    private int bindBuckets(PreparedStatement ps, java.util.Collection<Integer> buckets, int first) throws SQLException {
        int i = first;
        for (int b : buckets) {
            ps.setInt(i++, b);
        }
        while (i < first + outbox.bucketsPerClaim) {
            ps.setInt(i++, NONE);
        }
        return i;
    }

    /**
     * Sends the rows, each key's one after the other and the keys side by side, all within the send timeout from the
     * first send; deletes (or marks) the acknowledged rows, holds or parks the failed ones. Returns how many were
     * acknowledged.
     */
    private int send(Connection c, List<Row> rows) throws SQLException {
        int n = rows.size();
        Batch batch = new Batch(n, thread);
        int[] next = new int[n];
        Map<String, Integer> lastOfKey = new HashMap<>();
        List<Integer> heads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Row row = rows.get(i);
            row.batch = batch;
            row.index = i;
            next[i] = NONE;
            Integer previous = row.key == null ? null : lastOfKey.put(row.key, i);
            if (previous == null) {
                heads.add(i);
            } else {
                next[previous] = i;
            }
        }
        long deadline = System.nanoTime() + outbox.sendTimeout.toNanos();
        int inFlight = 0;
        for (int i : heads) {
            if (stopping || System.nanoTime() - deadline >= 0) {
                break;
            }
            publish(rows.get(i));
            inFlight++;
        }
        int taken = 0;
        while (inFlight > 0) {
            int done = batch.completed.get(taken) - 1;
            if (done < 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
                continue;
            }
            taken++;
            inFlight--;
            Row row = rows.get(done);
            if (row.error == null) {
                row.state = Row.ACKED;
                int following = next[done];
                if (following != NONE && !stopping && System.nanoTime() - deadline < 0) {
                    publish(rows.get(following));
                    inFlight++;
                }
            } else {
                row.state = Row.FAILED; // its key's later rows are not sent in this batch
            }
        }
        for (Row row : rows) {
            if (row.state == Row.SENDING) {
                row.state = Row.FAILED;
                row.error = new TimeoutException("no acknowledgement within " + outbox.sendTimeout + " of the batch's first send");
            }
        }
        long[] gone = new long[n];
        int count = 0;
        for (Row row : rows) {
            if (row.state == Row.ACKED) {
                gone[count++] = row.id;
            }
        }
        markDone(c, gone, count);
        Row firstFailed = null;
        int failed = 0;
        brokerFailed = false;
        for (Row row : rows) {
            if (row.state == Row.ACKED) {
                record(row);
            } else if (row.state == Row.FAILED) {
                failed++;
                if (firstFailed == null) {
                    firstFailed = row;
                }
                if (!isOwnFault(unwrap(row.error))) {
                    brokerFailed = true;
                }
                hold(c, row);
            }
        }
        if (failed == 0) {
            if (failures > 0) {
                log.info("Outbox '{}': the relay sends again after {} failed batches ({} ms)", outbox.table, failures,
                        System.currentTimeMillis() - failingSince);
                failures = 0;
            }
            return count;
        }
        noteFailure(failed + " of " + n + " messages not acknowledged (their keys wait, the others went on); first: "
                + firstFailed.messageId + " to '" + firstFailed.destination + "': " + firstFailed.error, firstFailed.error);
        return count;
    }

    private void publish(Row row) {
        row.state = Row.SENDING;
        try {
            publisher(row).publish(row.message()).whenComplete(row);
        } catch (RuntimeException | LinkageError e) {
            row.accept(null, e);
        }
    }

    /** A failed row: held with back-off, or parked when refused for itself {@code maxAttempts} times. */
    private void hold(Connection c, Row row) throws SQLException {
        Throwable error = unwrap(row.error);
        int attempts = row.attempts + 1;
        String text = error.getClass().getName() + ": " + error.getMessage();
        if (text.length() > MAX_ERROR) {
            text = text.substring(0, MAX_ERROR);
        }
        if (isOwnFault(error) && attempts >= outbox.maxAttempts) {
            try (PreparedStatement park = c.prepareStatement(parkSql);
                    PreparedStatement delete = c.prepareStatement(unparkDeleteSql)) {
                park.setInt(1, attempts);
                park.setString(2, text);
                park.setLong(3, Outbox.micros(Instant.now()));
                park.setLong(4, row.id);
                park.executeUpdate();
                delete.setLong(1, row.id);
                delete.executeUpdate();
            }
            outbox.parkedNow(row.destination);
            log.error("Outbox '{}': message {} to '{}' (key {}) was refused {} times ({}); it is parked in '{}_parked' and"
                    + " its key's later messages go on; re-drive it with Outbox.redrive() once its cause is mended",
                    outbox.table, row.messageId, row.destination, row.key, attempts, text, outbox.table);
            return;
        }
        long backoff = Math.min(outbox.backoffMax.toMillis(),
                outbox.backoffMin.toMillis() << Math.min(20, Math.max(0, attempts - 1)));
        try (PreparedStatement ps = c.prepareStatement(holdSql)) {
            ps.setInt(1, attempts);
            ps.setLong(2, System.currentTimeMillis() + backoff);
            ps.setString(3, text);
            ps.setLong(4, row.id);
            ps.executeUpdate();
        }
        outbox.heldNow(row.destination);
    }

    /** True for a refusal of the message itself, which sending it again cannot mend. */
    static boolean isOwnFault(Throwable error) {
        return error instanceof InvalidMessageException || error instanceof InvalidDestinationException
                || error instanceof UnsupportedCapabilityException || error instanceof CodecException;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private void noteFailure(String what, Throwable cause) {
        Throwable e = cause == null ? null : unwrap(cause);
        if (failures++ == 0) {
            failingSince = System.currentTimeMillis();
            log.warn("Outbox '{}': {}; the rows wait in the table and the relay tries again with back-off (from {} to {})",
                    outbox.table, what, outbox.backoffMin, outbox.backoffMax);
        } else if (e != null && isOwnFault(e)) {
            log.warn("Outbox '{}': {}; the message's key waits, and the message is parked after {} attempts", outbox.table,
                    what, outbox.maxAttempts);
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
        for (int from = 0; from < count; from += chunk) {
            if (mark) {
                ps.setLong(1, now);
            }
            for (int j = 0; j < chunk; j++) {
                int k = from + j;
                ps.setLong(offset + j + 1, k < count ? ids[k] : ids[from]);
            }
            ps.addBatch();
        }
        ps.executeBatch();
    }

    private void record(Row row) {
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
        long latency = row.ackedMillis - row.writtenMicros / 1000;
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

    /**
     * The completions of one batch: each row completes once, so a slot a completion is enough and the array never
     * wraps; the broker's callback writes its row's index and wakes the relay, without a lock.
     */
    private static final class Batch {
        final AtomicIntegerArray completed;
        final AtomicInteger tail = new AtomicInteger();
        final Thread relay;

        Batch(int n, Thread relay) {
            this.completed = new AtomicIntegerArray(n);
            this.relay = relay;
        }

        void complete(int index) {
            completed.set(tail.getAndIncrement(), index + 1);
            LockSupport.unpark(relay);
        }
    }

    /** A row read for sending; its own completion callback. */
    private static final class Row implements BiConsumer<PublishReceipt, Throwable> {
        static final int READ = 0;
        static final int SENDING = 1;
        static final int ACKED = 2;
        static final int FAILED = 3;

        final long id;
        final int bucket;
        final String destination;
        final String key;
        final String messageId;
        final String contentType;
        final long createdMicros;
        final long deliverAtMillis;
        final int attempts;
        final long retryAtMillis;
        final long length;
        final long writtenMicros;
        String headers;
        byte[] payload;
        Batch batch;
        int index;
        int state = READ;
        volatile Throwable error;
        volatile long ackedMillis;

        Row(ResultSet rs) throws SQLException {
            id = rs.getLong(1);
            bucket = rs.getInt(2);
            destination = rs.getString(3);
            key = rs.getString(4);
            messageId = rs.getString(5);
            contentType = rs.getString(6);
            createdMicros = rs.getLong(7);
            long due = rs.getLong(8);
            deliverAtMillis = rs.wasNull() ? 0 : due;
            attempts = rs.getInt(9);
            long retry = rs.getLong(10);
            retryAtMillis = rs.wasNull() ? 0 : retry;
            length = rs.getLong(11);
            writtenMicros = rs.getLong(12);
        }

        Message<byte[]> message() {
            Map<String, String> h = headers == null ? Map.of() : HeaderText.decode(headers);
            Instant due = deliverAtMillis > System.currentTimeMillis() ? Instant.ofEpochMilli(deliverAtMillis) : null;
            return MessageAccess.forwarded(payload, key, h, messageId, Outbox.fromMicros(createdMicros), due);
        }

        @Override
        public void accept(PublishReceipt receipt, Throwable failure) {
            ackedMillis = System.currentTimeMillis();
            error = failure;
            batch.complete(index);
        }

        @Override
        public String toString() {
            return "Row[" + id + ", bucket " + bucket + ", " + destination + ", " + messageId + "]";
        }
    }
}
