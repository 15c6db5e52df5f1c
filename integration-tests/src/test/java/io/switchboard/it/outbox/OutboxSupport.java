package io.switchboard.it.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.testkit.fault.PooledDataSource;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The outbox on real brokers (the embedded Kafka, the local RabbitMQ) and the local PostgreSQL: tables and destination
 * names unique to each test, dropped and deleted after it; Switchboards and outboxes closed.
 */
abstract class OutboxSupport {

    static final RabbitMqServer RABBIT = RabbitMqServer.local();
    /** The longest wait for the relay to deliver what a test committed. */
    static final java.time.Duration DRAIN = java.time.Duration.ofSeconds(180);

    final String run = "ob_" + UUID.randomUUID().toString().substring(0, 8);
    final String table = run + "_outbox";
    /** Pooled: the inbox's handlers take three connections a message. */
    final PooledDataSource db = new PooledDataSource("jdbc:postgresql://127.0.0.1:5432/test", "postgres");
    final List<AutoCloseable> closeAfter = new ArrayList<>();
    final List<String> dropAfter = new ArrayList<>();

    @BeforeEach
    void requireServices() {
        RABBIT.require();
        try (Connection c = db.getConnection()) {
            assertThat(c.isValid(2)).isTrue();
        } catch (SQLException e) {
            throw new AssertionError("PostgreSQL is needed at 127.0.0.1:5432 (database test, user postgres, trust auth): start it"
                    + " with 'bash .ci/postgres-up.sh' (" + e.getMessage() + ")", e);
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP TABLE IF EXISTS " + table + "_lock");
            s.execute("DROP TABLE IF EXISTS " + table + "_parked");
            s.execute("DROP FUNCTION IF EXISTS " + table + "_notify()");
            for (String t : dropAfter) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
        }
        db.close();
        RABBIT.deleteNamesStartingWith(List.of(run));
    }

    <C extends AutoCloseable> C closeAfter(C closeable) {
        closeAfter.add(closeable);
        return closeable;
    }

    String destination(String purpose) {
        return run + "_" + purpose;
    }

    static Map<String, String> kafka() {
        return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
    }

    static Map<String, String> rabbit() {
        return Map.of("rabbitmq.uri", RABBIT.uriWithCredentials());
    }

    /** A consumer of {@code destination} on one broker: every delivery as "key/payload/id", in handling order. */
    List<String> consume(String brokerId, Map<String, String> props, String destination) throws Exception {
        Switchboard sb = closeAfter(Switchboard.builder().broker(brokerId).properties(props).build());
        List<String> got = new CopyOnWriteArrayList<>();
        Subscription s = sb.subscriber(destination, Codec.utf8()).group("billing").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, ctx) -> got.add(m.key() + "/" + m.payload() + "/" + m.id()));
        s.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        return got;
    }

    /** Commits {@code count} messages "n" with keys "k(n % keys)" in transactions of {@code perTransaction}. */
    void commit(OutboxPublisher<String> writer, int from, int count, int keys, int perTransaction) throws SQLException {
        for (int start = from; start < from + count; start += perTransaction) {
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                List<Message<String>> batch = new ArrayList<>(perTransaction);
                for (int n = start; n < Math.min(start + perTransaction, from + count); n++) {
                    batch.add(Message.of("k" + (n % keys), Integer.toString(n)));
                }
                writer.publishAll(c, batch);
                c.commit();
            }
        }
    }

    long rows(String t) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Checks "key/payload/id" lines: per key the payloads ascend; returns {received, distinct ids, reordered}. */
    static long[] books(List<String> got) {
        Map<String, Integer> last = new ConcurrentHashMap<>();
        Set<String> ids = new HashSet<>();
        long reordered = 0;
        for (String line : got) {
            String[] parts = line.split("/");
            int n = Integer.parseInt(parts[1]);
            boolean first = ids.add(parts[2]);
            Integer before = last.get(parts[0]);
            if (first && before != null && before > n) {
                reordered++;
            }
            if (before == null || n > before) {
                last.put(parts[0], n);
            }
        }
        return new long[] {got.size(), ids.size(), reordered};
    }
}
