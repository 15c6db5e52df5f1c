package io.switchboard.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.InvalidDestinationException;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.BrokerHealth;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The outbox on one database with the in-memory broker: what a transaction's outcome does to its messages, the
 * connections refused, per-key order, health and meters. A subclass gives the database; each test uses tables of its
 * own and drops them after.
 */
abstract class OutboxCases {

    /** Fails (never skips) with how to start the database when {@code db} does not answer. */
    static void requireDatabase(DataSource db, String howToStart) {
        try (Connection c = db.getConnection()) {
            assertThat(c.isValid(2)).isTrue();
        } catch (SQLException e) {
            throw new AssertionError(howToStart + " (" + e.getMessage() + ")", e);
        }
    }


    /** The database under test. */
    abstract DataSource db();

    /** Another database of the same kind, for the "other database" refusal. */
    abstract DataSource otherDb();

    final String table = "sb_outbox_" + UUID.randomUUID().toString().substring(0, 8);
    final String broker = "outbox-" + UUID.randomUUID();
    final List<AutoCloseable> closeLast = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            closeLast.get(i).close();
        }
        try (Connection c = db().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP TABLE IF EXISTS " + table + "_lock");
            s.execute("DROP TABLE IF EXISTS " + table + "_parked");
            dropExtra(s);
        }
    }

    /** Drops what a database makes beside the tables (PostgreSQL's notify function). */
    void dropExtra(Statement s) throws SQLException {}

    Switchboard switchboard() {
        Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", broker).build();
        closeLast.add(sb);
        return sb;
    }

    Outbox outbox(Switchboard sb, java.util.function.UnaryOperator<Outbox.Builder> settings) {
        Outbox outbox = settings.apply(Outbox.builder(sb, db()).table(table).poll(Duration.ofMillis(5), Duration.ofMillis(100)))
                .build();
        closeLast.add(outbox);
        return outbox;
    }

    /** Everything received on {@code destination}, as "key/payload/id". */
    List<String> receive(Switchboard sb, String destination) throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        Subscription s = sb.subscriber(destination, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, ctx) -> got.add(m.key() + "/" + m.payload() + "/" + m.id()));
        s.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return got;
    }

    long rows() throws SQLException {
        try (Connection c = db().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    @DisplayName("a rolled-back transaction publishes nothing; a committed one publishes each message once, with its id")
    void rollbackAndCommit() throws Exception {
        Switchboard sb = switchboard();
        List<String> got = receive(sb, "orders");
        Outbox outbox = outbox(sb, b -> b);
        OutboxPublisher<String> orders = outbox.publisher("orders", Codec.utf8());
        try (Connection c = db().getConnection()) {
            c.setAutoCommit(false);
            orders.publish(c, Message.of("k1", "rolled-back"));
            c.rollback();
            String id = orders.publish(c, Message.of("k1", "committed"));
            String raw = outbox.publish(c, "orders", Message.of("k2", "raw".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            c.commit();
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() >= 2);
            assertThat(got).containsExactlyInAnyOrder("k1/committed/" + id, "k2/raw/" + raw);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> rows() == 0);
        Thread.sleep(300); // a second send would arrive by now
        assertThat(got).as("sent once, rolled back never").hasSize(2);
    }

    @Test
    @DisplayName("a key that is not of the instance's key format is refused at write, as the relay's publisher would")
    void keyOfAnotherFormatRefused() throws Exception {
        Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", broker)
                .property(io.switchboard.spi.KeyFormat.PROPERTY, "long").build();
        closeLast.add(sb);
        List<String> got = receive(sb, "orders");
        OutboxPublisher<String> orders = outbox(sb, b -> b).publisher("orders", Codec.utf8());
        try (Connection c = db().getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> orders.publish(c, Message.of("abc", "refused")))
                    .isInstanceOf(io.switchboard.InvalidMessageException.class).hasMessageContaining("'abc'")
                    .hasMessageContaining("'long'");
            orders.publish(c, Message.of("-7", "written"));
            c.commit();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() >= 1);
        assertThat(got).singleElement().asString().startsWith("-7/written/");
    }

    @Test
    @DisplayName("refused, with nothing written: auto-commit, a closed connection, another database, a bad destination, a message too large")
    void refusals() throws Exception {
        Switchboard sb = switchboard();
        Outbox outbox = outbox(sb, b -> b.autoStart(false));
        OutboxPublisher<String> orders = outbox.publisher("orders", Codec.utf8());
        try (Connection c = db().getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> orders.publish(c, "x")).isInstanceOf(OutboxException.class)
                    .hasMessageContaining("auto-commit").hasMessageContaining(table).hasMessageContaining("setAutoCommit(false)");
        }
        Connection closed = db().getConnection();
        closed.setAutoCommit(false);
        closed.close();
        assertThatThrownBy(() -> orders.publish(closed, "x")).isInstanceOf(OutboxException.class).hasMessageContaining("closed");
        try (Connection other = otherDb().getConnection()) {
            other.setAutoCommit(false);
            assertThatThrownBy(() -> orders.publish(other, "x")).isInstanceOf(OutboxException.class)
                    .hasMessageContaining("data source").hasMessageContaining("different transactions");
        }
        assertThatThrownBy(() -> outbox.publisher("bad destination!", Codec.utf8())).isInstanceOf(InvalidDestinationException.class)
                .hasMessageContaining("bad destination!");
        try (Connection c = db().getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.publish(c, "", Message.of(new byte[1]))).isInstanceOf(InvalidDestinationException.class);
            assertThatThrownBy(() -> outbox.publish(c, "orders", Message.of(new byte[2 * 1024 * 1024])))
                    .isInstanceOf(MessageTooLargeException.class).hasMessageContaining("memory").hasMessageContaining("nothing was written");
            c.commit();
        }
        assertThat(rows()).isZero();
    }

    @Test
    @DisplayName("per-key order: 20 keys, 100 transactions of 20 messages, each key received in commit order, once")
    void perKeyOrder() throws Exception {
        Switchboard sb = switchboard();
        List<String> got = receive(sb, "ordered");
        Outbox outbox = outbox(sb, b -> b.batchSize(50).bucketsPerClaim(4));
        OutboxPublisher<String> ordered = outbox.publisher("ordered", Codec.utf8());
        int sent = 0;
        for (int tx = 0; tx < 100; tx++) {
            try (Connection c = db().getConnection()) {
                c.setAutoCommit(false);
                List<Message<String>> batch = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    batch.add(Message.of("key-" + (sent % 20), Integer.toString(sent++)));
                }
                ordered.publishAll(c, batch);
                c.commit();
            }
        }
        int total = sent;
        await().atMost(Duration.ofSeconds(60)).until(() -> got.size() >= total);
        assertOrdered(got, total);
    }

    static void assertOrdered(List<String> got, int total) {
        Map<String, Integer> last = new ConcurrentHashMap<>();
        java.util.Set<String> ids = new java.util.HashSet<>();
        List<String> outOfOrder = new ArrayList<>();
        for (String line : got) {
            String[] parts = line.split("/");
            int n = Integer.parseInt(parts[1]);
            Integer before = last.put(parts[0], n);
            if (before != null && before > n) {
                outOfOrder.add(parts[0] + ": " + before + " then " + n);
            }
            ids.add(parts[2]);
        }
        assertThat(outOfOrder).as("keys out of order").isEmpty();
        assertThat(ids).as("distinct ids").hasSize(total);
        assertThat(got).as("received (duplicates " + (got.size() - ids.size()) + ")").hasSize(total);
    }

    @Test
    @DisplayName("health: DEGRADED while a row older than degradedAfter waits, UP once it is sent; meters count what was sent")
    void healthAndMeters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Switchboard sb = switchboard();
        List<String> got = receive(sb, "watched");
        Outbox outbox = outbox(sb, b -> b.autoStart(false).degradedAfter(Duration.ofSeconds(30)).meterRegistry(registry));
        try (Connection c = db().getConnection()) {
            c.setAutoCommit(false);
            // a message made long ago (forwarded, say) but written now is not late: the age counts from the write
            outbox.publisher("watched", Codec.utf8()).publish(c,
                    Message.builder("old").key("k").timestamp(Instant.now().minus(Duration.ofHours(2))).build());
            c.commit();
        }
        assertThat(outbox.health().status()).as("a fresh write of an old message").isEqualTo(BrokerHealth.Status.UP);
        try (Connection c = db().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.executeUpdate("UPDATE " + table + " SET written_micros = written_micros - 120000000"); // written 2 min ago
        }
        BrokerHealth waiting = outbox.health();
        assertThat(waiting.status()).isEqualTo(BrokerHealth.Status.DEGRADED);
        assertThat(waiting.reason()).contains("backlog 1 rows");
        assertThat(outbox.backlog()).isEqualTo(1);
        assertThat(outbox.oldestUnsentAge()).isGreaterThan(Duration.ofSeconds(60));
        outbox.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox.health().status() == BrokerHealth.Status.UP);
        assertThat(registry.get("switchboard.outbox.relayed").tag("table", table).tag("destination", "watched").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("switchboard.outbox.relay.latency").tag("destination", "watched").timer().count()).isEqualTo(1);
        assertThat(registry.get("switchboard.outbox.backlog").tag("table", table).gauge().value()).isZero();
    }

    @Test
    @DisplayName("createSchema(false) on a missing table: a clear error naming the table and the script")
    void missingTable() {
        Switchboard sb = switchboard();
        assertThatThrownBy(() -> Outbox.builder(sb, db()).table(table + "_absent").createSchema(false).build())
                .isInstanceOf(OutboxException.class).hasMessageContaining(table + "_absent")
                .hasMessageContaining("io/switchboard/outbox/schema-");
    }

    @Test
    @DisplayName("retention: sent rows are kept, marked sent, and not sent again")
    void retention() throws Exception {
        Switchboard sb = switchboard();
        List<String> got = receive(sb, "kept");
        Outbox outbox = outbox(sb, b -> b.retention(Duration.ofDays(1)));
        try (Connection c = db().getConnection()) {
            c.setAutoCommit(false);
            outbox.publisher("kept", Codec.utf8()).publish(c, "one");
            c.commit();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox.health().reason().startsWith("backlog 0 rows"));
        assertThat(rows()).isEqualTo(1);
        Thread.sleep(300);
        assertThat(got).hasSize(1);
    }
}
