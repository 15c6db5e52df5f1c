package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.spi.IdempotencyStore.Claim;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The durable idempotency store on the local PostgreSQL (127.0.0.1:5432, database test, trust auth). */
@DisplayName("JdbcIdempotencyStore on PostgreSQL")
class JdbcIdempotencyStoreTest {

    private final PGSimpleDataSource db = new PGSimpleDataSource();
    private final String table = "sb_idem_" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void requirePostgres() {
        db.setURL("jdbc:postgresql://127.0.0.1:5432/test");
        db.setUser(System.getProperty("user.name"));
        try (Connection c = db.getConnection()) {
            assertThat(c.isValid(2)).isTrue();
        } catch (SQLException e) {
            throw new AssertionError("PostgreSQL is needed at 127.0.0.1:5432 (database test, trust auth): start it with "
                    + "'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start' (" + e.getMessage() + ")", e);
        }
    }

    @AfterEach
    void dropTable() throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private long rows() throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    @DisplayName("claim, complete, release: BUSY while claimed, DONE after, a released id is claimed again")
    void protocol() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db).table(table).build();
        assertThat(store.claim("orders/billing", "m1")).isEqualTo(Claim.CLAIMED);
        assertThat(store.claim("orders/billing", "m1")).as("claimed by a live delivery").isEqualTo(Claim.BUSY);
        store.complete("orders/billing", "m1");
        assertThat(store.claim("orders/billing", "m1")).as("done").isEqualTo(Claim.DONE);
        store.release("orders/billing", "m1");
        assertThat(store.claim("orders/billing", "m1")).as("a release after completion changes nothing").isEqualTo(Claim.DONE);
        assertThat(store.claim("orders/shipping", "m1")).as("another group's scope").isEqualTo(Claim.CLAIMED);
        store.release("orders/shipping", "m1");
        assertThat(store.claim("orders/shipping", "m1")).as("released after a failure").isEqualTo(Claim.CLAIMED);
    }

    @Test
    @DisplayName("completeIn: the done mark commits or rolls back with the caller's transaction; a second one answers false")
    void completeInTheCallersTransaction() throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db).table(table).build();
        assertThat(store.claim("s", "m1")).isEqualTo(Claim.CLAIMED);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            assertThat(store.completeIn(c, "s", "m1")).isTrue();
            c.rollback();
        }
        assertThat(store.claim("s", "m1")).as("rolled back: still claimed").isEqualTo(Claim.BUSY);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            assertThat(store.completeIn(c, "s", "m1")).isTrue();
            c.commit();
        }
        assertThat(store.claim("s", "m1")).as("committed: done").isEqualTo(Claim.DONE);
        store.complete("s", "m1");
        store.release("s", "m1");
        assertThat(store.claim("s", "m1")).as("core's complete or release afterwards is harmless").isEqualTo(Claim.DONE);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            assertThat(store.completeIn(c, "s", "m1")).as("a delivery whose claim was taken over and completed").isFalse();
            c.rollback();
        }
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            assertThat(store.completeIn(c, "s", "never-claimed")).as("no row (released by a taker): recorded done").isTrue();
            c.commit();
        }
        assertThat(store.claim("s", "never-claimed")).isEqualTo(Claim.DONE);
        try (Connection c = db.getConnection()) {
            assertThatThrownBy(() -> store.completeIn(c, null, "m2")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("m2").hasMessageContaining("idempotencyScope()");
        }
    }

    @Test
    @DisplayName("exactly once across a restart: a new Switchboard with the same store skips every id the old one handled")
    void acrossRestart() {
        String broker = "restart-" + UUID.randomUUID();
        Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
        for (int life = 0; life < 2; life++) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db).table(table).build();
            try (Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", broker)
                    .idempotencyStore(store).build()) {
                Subscription s = sb.subscriber("orders", Codec.utf8()).group("billing").delivery(Delivery.EXACTLY_ONCE)
                        .subscribe((m, c) -> handled.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet());
                s.ready().toCompletableFuture().join();
                Publisher<String> p = sb.publisher("orders", Codec.utf8()).build();
                // the second life publishes ids 50..149 again (a producer retrying after a restart) and 150..199 new
                int from = life == 0 ? 0 : 50;
                int to = life == 0 ? 150 : 200;
                for (int i = from; i < to; i++) {
                    p.publish(Message.builder("m" + i).key("k" + i % 7).id("id-" + i).build()).toCompletableFuture().join();
                }
                int expected = life == 0 ? 150 : 200;
                await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == expected);
            }
        }
        assertThat(handled).hasSize(200);
        assertThat(handled.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    }

    @Test
    @DisplayName("a claim left by a dead process is taken over after the claim timeout; done ids expire and the table stays bounded")
    void staleClaimsExpiryAndBound() throws SQLException {
        MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:00Z"));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db).table(table).clock(clock).claimTimeout(Duration.ofMinutes(5))
                .retention(Duration.ofHours(1)).maxRows(50).purgeEvery(1_000_000).build();
        assertThat(store.claim("s", "dead")).isEqualTo(Claim.CLAIMED);
        clock.advance(Duration.ofMinutes(4));
        assertThat(store.claim("s", "dead")).as("claim still young").isEqualTo(Claim.BUSY);
        clock.advance(Duration.ofMinutes(2));
        assertThat(store.claim("s", "dead")).as("stale claim taken over").isEqualTo(Claim.CLAIMED);
        assertThat(store.claim("s", "dead")).as("the taker's claim is young").isEqualTo(Claim.BUSY);
        store.complete("s", "dead");

        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofSeconds(1));
            store.claim("s", "id-" + i);
            store.complete("s", "id-" + i);
        }
        assertThat(rows()).isEqualTo(101);
        int deleted = store.purge();
        assertThat(rows()).as("bounded to maxRows done rows").isLessThanOrEqualTo(50);
        assertThat(deleted).isGreaterThanOrEqualTo(51);
        assertThat(store.claim("s", "id-99")).as("the newest ids are kept").isEqualTo(Claim.DONE);
        clock.advance(Duration.ofHours(2));
        store.purge();
        assertThat(rows()).as("expired after the retention").isZero();
    }

    @Test
    @DisplayName("bad settings and an unreachable database are refused with the value and the fix")
    void badInput() {
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db).table("drop table x;"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("drop table x;");
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db).retention(Duration.ZERO))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("PT0S");
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setURL("jdbc:postgresql://127.0.0.1:1/test");
        nowhere.setConnectTimeout(2);
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(nowhere).table(table).build())
                .isInstanceOf(SwitchboardException.class).hasMessageContaining("Could not create idempotency table");
    }

    @Test
    @DisplayName("the README's recipe: output and done mark commit together; a redelivered id writes nothing")
    void readmeRecipe() throws Exception {
        DataSource dataSource = db;
        String brokerId = "memory";
        String invoices = table + "_invoices";
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + invoices + " (payload VARCHAR(64) NOT NULL)");
        }
        String id = UUID.randomUUID().toString();
        try {
            // tag::exactly-once-recipe[]
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).claimTimeout(Duration.ofSeconds(30)).build();
            Switchboard sb = Switchboard.builder().broker(brokerId).idempotencyStore(store).build();
            sb.subscriber("orders", Codec.utf8()).group("billing").delivery(Delivery.EXACTLY_ONCE)
                    .subscribe((message, context) -> {
                        try (Connection c = dataSource.getConnection()) {
                            c.setAutoCommit(false);
                            writeInvoice(c, message.payload());                      // the handler's output
                            if (store.completeIn(c, context.idempotencyScope(), message.id())) {
                                c.commit();                                           // output and done mark together
                            } else {
                                c.rollback();                                         // a duplicate: already written
                            }
                        }
                    });
            // end::exactly-once-recipe[]
            try (sb) {
                Publisher<String> publisher = sb.publisher("orders", Codec.utf8()).build();
                publisher.publish(Message.builder("first").key("k").id(id).build()).toCompletableFuture().get();
                publisher.publish(Message.builder("again").key("k").id(id).build()).toCompletableFuture().get();
                publisher.publish(Message.builder("second").key("k").build()).toCompletableFuture().get();
                await().atMost(Duration.ofSeconds(30)).until(() -> invoiceRows(invoices).contains("second"));
                assertThat(invoiceRows(invoices)).containsExactlyInAnyOrder("first", "second");
            }
        } finally {
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + invoices);
                s.execute("DELETE FROM switchboard_processed WHERE message_id = '" + id + "'");
            }
        }
    }

    private void writeInvoice(Connection c, String payload) throws SQLException {
        try (java.sql.PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + "_invoices VALUES (?)")) {
            insert.setString(1, payload);
            insert.executeUpdate();
        }
    }

    private java.util.List<String> invoiceRows(String invoices) throws SQLException {
        java.util.List<String> rows = new java.util.ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT payload FROM " + invoices)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    /** A clock the test moves. */
    private static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

}
