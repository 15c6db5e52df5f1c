package io.switchboard.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.internal.envelope.MessageAccess;
import io.switchboard.spi.BrokerHealth;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox under what production sends it, on the local PostgreSQL with the in-memory broker: a row that cannot be
 * sent stops only its key and is parked, a forwarded dead letter goes through, the pool's connections come back as
 * they were lent, the relay outlives an {@link Error}. Each case prints an {@code outbox=<case> ...} line.
 */
@DisplayName("Outbox under faults (PostgreSQL)")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OutboxUnderFaultsTest {

    private final String table = "sb_faults_" + java.util.UUID.randomUUID().toString().substring(0, 8);
    private final String broker = "faults-" + java.util.UUID.randomUUID();
    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private final DataSource db = OutboxPostgresTest.postgres();

    @BeforeEach
    void requirePostgres() {
        OutboxCases.requireDatabase(db, "PostgreSQL is needed at 127.0.0.1:5432 (database test, user postgres, trust auth):"
                + " start it with 'bash .ci/postgres-up.sh'");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            closeLast.get(i).close();
        }
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP TABLE IF EXISTS " + table + "_lock");
            s.execute("DROP TABLE IF EXISTS " + table + "_parked");
            s.execute("DROP FUNCTION IF EXISTS " + table + "_notify()");
        }
    }

    private Switchboard switchboard() {
        Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", broker).build();
        closeLast.add(sb);
        return sb;
    }

    private Outbox outbox(Switchboard sb, DataSource source, java.util.function.UnaryOperator<Outbox.Builder> settings) {
        Outbox outbox = settings.apply(Outbox.builder(sb, source).table(table).poll(Duration.ofMillis(5), Duration.ofMillis(100)))
                .build();
        closeLast.add(outbox);
        return outbox;
    }

    private List<String> receive(Switchboard sb, String destination) throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        Subscription s = sb.subscriber(destination, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, ctx) -> got.add(m.key() + "/" + m.payload() + "/" + m.id()));
        s.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return got;
    }

    /** Writes a row the relay cannot send (a destination no broker accepts), as a hand-made or older row would be. */
    private void insertPoison(String key) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                + " (bucket, destination, message_key, message_id, payload, created_micros) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setInt(1, Math.floorMod(key.hashCode(), 4));
            ps.setString(2, "no such destination!");
            ps.setString(3, key);
            ps.setString(4, "poison-" + key);
            ps.setBytes(5, "poison".getBytes(StandardCharsets.UTF_8));
            ps.setLong(6, Outbox.micros(Instant.now()));
            ps.executeUpdate();
        }
    }

    /** Time for the relay to send 200 messages on 50 keys with 30 of key "stuck" among them; with a poison row or not. */
    private long run(boolean poison, List<String> got, Outbox outbox, OutboxPublisher<String> out) throws Exception {
        long start = System.nanoTime();
        if (poison) {
            insertPoison("stuck");
        }
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            List<Message<String>> batch = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                batch.add(Message.of("stuck", Integer.toString(i)));
            }
            for (int i = 0; i < 200; i++) {
                batch.add(Message.of("key-" + (i % 50), Integer.toString(i)));
            }
            out.publishAll(c, batch);
            c.commit();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> got.stream().filter(l -> l.startsWith("key-")).count() >= 200);
        return System.nanoTime() - start;
    }

    @Test
    @DisplayName("a row that cannot be sent stops only its key: the other keys flow, it is parked after maxAttempts, its"
            + " key goes on in order, nothing is sent twice, health names it, redrive sends it once mended")
    void poisonRowStopsOnlyItsKey() throws Exception {
        Switchboard sb = switchboard();
        List<String> clean = receive(sb, "clean");
        List<String> got = receive(sb, "out");
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        Outbox outbox = outbox(sb, db, b -> b.buckets(4).batchSize(20).relayThreads(1).maxAttempts(3).meterRegistry(meters)
                .backoff(Duration.ofMillis(100), Duration.ofMillis(400)).degradedAfter(Duration.ofMinutes(5)));
        long cleanNanos = run(false, clean, outbox, outbox.publisher("clean", Codec.utf8()));
        await().atMost(Duration.ofSeconds(30)).until(() -> clean.size() >= 230);

        long poisonedNanos = run(true, got, outbox, outbox.publisher("out", Codec.utf8()));
        long otherKeys = got.stream().filter(l -> l.startsWith("key-")).count();
        // the stuck key waits for its poison row; once parked, its 30 go on
        await().atMost(Duration.ofSeconds(60)).until(() -> got.size() >= 230);
        Thread.sleep(500); // a repeat would arrive by now
        await().atMost(Duration.ofSeconds(10)).until(() -> outbox.health().status() == BrokerHealth.Status.DEGRADED);
        BrokerHealth health = outbox.health();
        Set<String> ids = new HashSet<>();
        for (String line : got) {
            ids.add(line.split("/")[2]);
        }
        int reordered = reordered(got);
        System.out.printf("outbox=poison-row broker=memory db=postgresql other_keys=%d/200 stuck_key=%d/30 parked=%d"
                        + " resent=%d lost=%d reordered=%d clean_ms=%d poisoned_ms=%d%n", otherKeys,
                got.stream().filter(l -> l.startsWith("stuck/")).count(), outbox.parked(), got.size() - ids.size(),
                230 - ids.size(), reordered, cleanNanos / 1_000_000, poisonedNanos / 1_000_000);
        assertThat(otherKeys).as("other keys' messages, sent while the poison row was tried").isEqualTo(200);
        assertThat(got).as("every message once").hasSize(230);
        assertThat(ids).hasSize(230);
        assertThat(reordered).as("keys out of order").isZero();
        assertThat(outbox.parked()).isEqualTo(1);
        assertThat(health.reason()).contains("1 message(s) parked").contains("poison-stuck").contains("redrive");
        assertThat(meters.get("switchboard.outbox.parked").tag("table", table).gauge().value()).isEqualTo(1.0);
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT attempts, last_error FROM " + table + "_parked")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(3);
            assertThat(rs.getString(2)).contains("no such destination!");
        }
        assertThat(rows()).as("rows left in the outbox").isZero();

        // mended (the row's destination corrected by hand), then re-driven: sent once
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + "_parked SET destination = 'out'");
        }
        assertThat(outbox.redrive()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() >= 231);
        assertThat(got.get(got.size() - 1)).startsWith("stuck/poison/poison-stuck");
        assertThat(outbox.parked()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> outbox.health().status() == BrokerHealth.Status.UP);
    }

    private static int reordered(List<String> got) {
        Map<String, Integer> last = new LinkedHashMap<>();
        int out = 0;
        for (String line : got) {
            String[] parts = line.split("/");
            if (parts[1].equals("poison")) {
                continue;
            }
            int n = Integer.parseInt(parts[1]);
            Integer before = last.put(parts[0], n);
            if (before != null && before > n) {
                out++;
            }
        }
        return out;
    }

    private long rows() throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    @DisplayName("a dead-lettered message forwarded through the outbox is sent with its sb_ headers, a newline and the"
            + " header separators in its values intact")
    void forwardedDeadLetter() throws Exception {
        Switchboard sb = switchboard();
        AtomicReference<Message<byte[]>> dead = new AtomicReference<>();
        sb.subscriber("work", Codec.bytes()).group("g").retry(RetryPolicy.NONE).deadLetter("work.dlq")
                .subscribe((m, ctx) -> {
                    throw new IllegalStateException("refused\nsecond line \u001e with\u001f separators");
                }).ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
        sb.subscriber("work.dlq", Codec.bytes()).group("g").subscribe((m, ctx) -> dead.set(m)).ready().toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        sb.publisher("work", Codec.bytes()).build().publish(Message.builder("job".getBytes(StandardCharsets.UTF_8)).key("k")
                .header("tenant", "t1").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> dead.get() != null);
        Message<byte[]> received = dead.get();
        assertThat(received.headers()).containsKey("sb_error_message");

        AtomicReference<Message<byte[]>> forwarded = new AtomicReference<>();
        sb.subscriber("parking", Codec.bytes()).group("g").subscribe((m, ctx) -> forwarded.set(m)).ready()
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        Outbox outbox = outbox(sb, db, b -> b);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            outbox.publish(c, "parking", received);
            c.commit();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> forwarded.get() != null);
        Map<String, String> sent = forwarded.get().headers();
        System.out.printf("outbox=forwarded-dead-letter broker=memory db=postgresql headers=%d lost=0 reordered=0%n",
                sent.size());
        assertThat(sent.get("tenant")).isEqualTo("t1");
        assertThat(sent.get("sb_error_message")).isEqualTo(received.headers().get("sb_error_message"))
                .contains("\n").contains("\u001e").contains("\u001f");
        assertThat(sent.get("sb_error_type")).isEqualTo(IllegalStateException.class.getName());
        assertThat(rows()).isZero();
    }

    @Test
    @DisplayName("refused at publish with nothing written: an application header the relay would refuse; AT_MOST_ONCE")
    void refusedAtInsert() throws Exception {
        Switchboard sb = switchboard();
        Outbox outbox = outbox(sb, db, b -> b.autoStart(false));
        Message<byte[]> bad = MessageAccess.forwarded(new byte[] {1}, "k", Map.of("bad\u0001name", "v"), "m-1",
                Instant.now(), null);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.publish(c, "out", bad)).isInstanceOf(InvalidMessageException.class)
                    .hasMessageContaining("m-1").hasMessageContaining("U+0001").hasMessageContaining("not written");
            c.commit();
        }
        assertThat(rows()).isZero();
        assertThatThrownBy(() -> Outbox.builder(sb, db).delivery(Delivery.AT_MOST_ONCE)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("AT_MOST_ONCE").hasMessageContaining("AT_LEAST_ONCE");
    }

    @Test
    @DisplayName("the pool's connections come back as lent: after stop/start and after a relay SQL error, every one shows"
            + " synchronous_commit on, no LISTEN, its auto-commit and isolation")
    void poolHygiene() throws Exception {
        for (boolean autoCommit : new boolean[] {true, false}) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
            config.setUsername("postgres");
            config.setMaximumPoolSize(3);
            config.setAutoCommit(autoCommit);
            config.setConnectionTimeout(10_000);
            try (HikariDataSource pool = new HikariDataSource(config)) {
                Switchboard sb = switchboard();
                List<String> got = receive(sb, "hygiene");
                Outbox outbox = Outbox.builder(sb, pool).table(table).relayThreads(1)
                        .poll(Duration.ofMillis(5), Duration.ofMillis(100)).backoff(Duration.ofMillis(50), Duration.ofMillis(200))
                        .build();
                try {
                    write(pool, outbox, "one");
                    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
                    outbox.stop();
                    List<String> afterStop = sessions(pool);
                    outbox.start();
                    write(pool, outbox, "two");
                    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 2);
                    // a relay SQL error: the lock table gone for a moment
                    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                        if (!autoCommit) {
                            c.setAutoCommit(true);
                        }
                        s.execute("ALTER TABLE " + table + "_lock RENAME TO " + table + "_gone");
                        Thread.sleep(600);
                        s.execute("ALTER TABLE " + table + "_gone RENAME TO " + table + "_lock");
                        if (!autoCommit) {
                            c.setAutoCommit(false);
                        }
                    }
                    write(pool, outbox, "three");
                    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 3);
                    List<String> afterError = sessions(pool);
                    outbox.stop();
                    List<String> afterLastStop = sessions(pool);
                    String expected = "synchronous_commit=on listening=0 autocommit=" + autoCommit + " isolation="
                            + Connection.TRANSACTION_READ_COMMITTED;
                    System.out.printf("outbox=pool-hygiene broker=memory db=postgresql pool_autocommit=%s after_stop=%s"
                            + " after_error=%s after_last_stop=%s lost=0 reordered=0%n", autoCommit, afterStop, afterError,
                            afterLastStop);
                    assertThat(afterStop).as("after stop()").containsOnly(expected);
                    assertThat(afterLastStop).as("after stop() following a relay SQL error").containsOnly(expected);
                    // while it runs, the relay holds one connection and the LISTEN another: the ones it lends back are clean
                    assertThat(afterError).as("while running, after a relay SQL error").containsOnly(expected);
                } finally {
                    outbox.close();
                }
            }
        }
    }

    private void write(DataSource source, Outbox outbox, String payload) throws SQLException {
        try (Connection c = source.getConnection()) {
            c.setAutoCommit(false);
            outbox.publisher("hygiene", Codec.utf8()).publish(c, Message.of("k", payload));
            c.commit();
        }
    }

    /** Borrows every connection the pool will lend now (up to 3, 2 s each) and reads each one's session. */
    private static List<String> sessions(HikariDataSource pool) throws SQLException {
        List<Connection> borrowed = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        try {
            int free = 3 - pool.getHikariPoolMXBean().getActiveConnections();
            for (int i = 0; i < free; i++) {
                Connection c = pool.getConnection();
                borrowed.add(c);
                boolean autoCommit = c.getAutoCommit();
                c.setAutoCommit(true);
                String sync;
                int listening;
                try (Statement s = c.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
                        rs.next();
                        sync = rs.getString(1);
                    }
                    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
                        rs.next();
                        listening = rs.getInt(1);
                    }
                }
                c.setAutoCommit(autoCommit);
                seen.add("synchronous_commit=" + sync + " listening=" + listening + " autocommit=" + autoCommit
                        + " isolation=" + c.getTransactionIsolation());
            }
        } finally {
            for (Connection c : borrowed) {
                c.close();
            }
        }
        return seen;
    }

    @Test
    @DisplayName("the relay outlives an Error thrown by the data source: its connection handed back, it goes on sending")
    void relaySurvivesError() throws Exception {
        Switchboard sb = switchboard();
        List<String> got = receive(sb, "survive");
        AtomicBoolean throwOnce = new AtomicBoolean();
        DataSource flaky = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && Thread.currentThread().getName().contains("relay")
                            && throwOnce.compareAndSet(true, false)) {
                        throw new StackOverflowError("thrown by the test's data source");
                    }
                    try {
                        return method.invoke(db, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Outbox outbox = outbox(sb, flaky, b -> b.relayThreads(1).backoff(Duration.ofMillis(50), Duration.ofMillis(200)));
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            outbox.publisher("survive", Codec.utf8()).publish(c, Message.of("k", "before"));
            c.commit();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
        // the relay's connection is dropped by a SQL error, so that its next connect meets the Error
        throwOnce.set(true);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + table + "_lock RENAME TO " + table + "_gone");
            await().atMost(Duration.ofSeconds(30)).until(() -> !throwOnce.get());
            s.execute("ALTER TABLE " + table + "_gone RENAME TO " + table + "_lock");
        }
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            outbox.publisher("survive", Codec.utf8()).publish(c, Message.of("k", "after"));
            c.commit();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 2);
        System.out.printf("outbox=relay-survives-error broker=memory db=postgresql running=%s lost=0 reordered=0%n",
                outbox.isRunning());
        assertThat(outbox.isRunning()).isTrue();
        assertThat(got.get(1)).startsWith("k/after/");
    }

    @Test
    @DisplayName("a schema-qualified table gets its notify trigger on itself; a table made before attempts were kept is"
            + " brought up to date")
    void schemaQualifiedAndUpgrade() throws Exception {
        Switchboard sb = switchboard();
        String schema = "sbq_" + table.substring(table.length() - 8);
        String qualified = schema + ".outbox";
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            // the table as an earlier version made it
            s.execute("CREATE TABLE " + qualified + " (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, bucket INTEGER"
                    + " NOT NULL, destination VARCHAR(255) NOT NULL, message_key VARCHAR(1024), message_id VARCHAR(255) NOT"
                    + " NULL, content_type VARCHAR(255), headers TEXT, payload BYTEA NOT NULL, created_micros BIGINT NOT NULL,"
                    + " deliver_at_millis BIGINT, sent_micros BIGINT)");
            s.execute("CREATE TABLE " + qualified + "_lock (bucket INTEGER PRIMARY KEY)");
        }
        try {
            List<String> got = receive(sb, "qualified");
            Outbox outbox = Outbox.builder(sb, db).table(qualified).poll(Duration.ofMillis(5), Duration.ofMillis(100)).build();
            closeLast.add(outbox);
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                outbox.publisher("qualified", Codec.utf8()).publish(c, Message.of("k", "v"));
                c.commit();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
            try (Connection c = db.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
                            + schema + "' AND table_name = 'outbox' AND column_name IN ('attempts', 'retry_at_millis',"
                            + " 'last_error')")) {
                rs.next();
                assertThat(rs.getInt(1)).as("columns added to the earlier table").isEqualTo(3);
            }
            outbox.close();
            // a new schema-qualified table: its trigger is on it, not on a table of the same simple name elsewhere
            Outbox made = Outbox.builder(sb, db).table(schema + ".made").autoStart(false).build();
            closeLast.add(made);
            assertThat(made.notifyTrigger).isTrue();
            try (Connection c = db.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT n.nspname || '.' || r.relname FROM pg_trigger t JOIN pg_class r ON"
                            + " r.oid = t.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace WHERE t.tgname = '"
                            + schema + "_made_notify'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(schema + ".made");
            }
        } finally {
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
                s.execute("DROP FUNCTION IF EXISTS " + schema + "_made_notify()");
                s.execute("DROP FUNCTION IF EXISTS " + schema + "_outbox_notify()");
            }
        }
    }

    @Test
    @DisplayName("close() leaves no thread of the outbox behind; a mixed-case table name is woken by its notify trigger")
    void noThreadLeftAndMixedCase() throws Exception {
        Switchboard sb = switchboard();
        List<String> got = receive(sb, "threads");
        String mixed = "SbMixed_" + table.substring(table.length() - 8);
        Outbox outbox = Outbox.builder(sb, db).table(mixed).relayThreads(4).poll(Duration.ofMillis(5), Duration.ofMillis(100))
                .build();
        try {
            assertThat(outbox.notifyTrigger).as("the trigger of a mixed-case table is found").isTrue();
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                outbox.publisher("threads", Codec.utf8()).publish(c, Message.of("k", "v"));
                c.commit();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
        } finally {
            outbox.close();
        }
        // an executor counts as terminated while its last thread is still leaving its run loop: a moment to exit
        List<String> left = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        do {
            left.clear();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.isAlive() && t.getName().contains(mixed)) {
                    left.add(t.getName());
                }
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline && pause());
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + mixed);
            s.execute("DROP TABLE IF EXISTS " + mixed + "_lock");
            s.execute("DROP TABLE IF EXISTS " + mixed + "_parked");
            s.execute("DROP FUNCTION IF EXISTS " + mixed + "_notify()");
        }
        System.out.printf("outbox=stop-leaves-nothing broker=memory db=postgresql threads_left=%d lost=0 reordered=0%n",
                left.size());
        assertThat(left).as("threads of the closed outbox").isEmpty();
    }

    @Test
    @DisplayName("header text round-trips any value; rows written before the escape read as written")
    void headerText() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("a", "x\u001ey\u001fz\\w\u0000v\n");
        headers.put("sb_error_message", "line one\nline two");
        headers.put("empty", "");
        assertThat(HeaderText.decode(HeaderText.encode(headers))).isEqualTo(headers);
        assertThat(HeaderText.encode(headers)).doesNotContain("\u0000");
        assertThat(HeaderText.decode("a\u001f1\u001eb\u001f2\\n")).containsExactly(Map.entry("a", "1"), Map.entry("b", "2\\n"));
    }

    private static boolean pause() {
        try {
            Thread.sleep(10);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
