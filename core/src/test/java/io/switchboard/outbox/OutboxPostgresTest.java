package io.switchboard.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The outbox on the local PostgreSQL (127.0.0.1:5432, database test, trust auth), woken by LISTEN/NOTIFY. */
@DisplayName("Outbox on PostgreSQL")
class OutboxPostgresTest extends OutboxCases {

    private final PGSimpleDataSource db = new PGSimpleDataSource();

    static PGSimpleDataSource postgres() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL("jdbc:postgresql://127.0.0.1:5432/test");
        ds.setUser("postgres");
        return ds;
    }

    @BeforeEach
    void requirePostgres() {
        db.setURL("jdbc:postgresql://127.0.0.1:5432/test");
        db.setUser("postgres");
        requireDatabase(db, "PostgreSQL is needed at 127.0.0.1:5432 (database test, user postgres, trust auth): start it"
                + " with 'bash .ci/postgres-up.sh'");
    }

    @Override
    DataSource db() {
        return db;
    }

    @Override
    DataSource otherDb() {
        return OutboxH2Test.h2("other-" + UUID.randomUUID());
    }

    @Override
    void dropExtra(Statement s) throws SQLException {
        s.execute("DROP FUNCTION IF EXISTS " + table + "_notify()");
    }

    @Test
    @DisplayName("the notify trigger is made with the table, so the relay is woken rather than polling")
    void notifyTrigger() {
        Outbox outbox = outbox(switchboard(), b -> b.autoStart(false));
        assertThat(outbox.notifyTrigger).isTrue();
    }

    @Test
    @DisplayName("two relays on one table, 4,000 messages committed while both run: none sent twice, per-key order kept")
    void twoRelays() throws Exception {
        Switchboard consumer = switchboard();
        List<String> got = receive(consumer, "shared");
        SimpleMeterRegistry firstMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry secondMeters = new SimpleMeterRegistry();
        Outbox first = outbox(switchboard(), b -> b.batchSize(100).bucketsPerClaim(8).meterRegistry(firstMeters));
        Outbox second = outbox(switchboard(), b -> b.batchSize(100).bucketsPerClaim(8).meterRegistry(secondMeters));
        OutboxPublisher<String> writer = first.publisher("shared", Codec.utf8());
        int sent = 0;
        for (int tx = 0; tx < 200; tx++) {
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                List<Message<String>> batch = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    batch.add(Message.of("key-" + (sent % 50), Integer.toString(sent++)));
                }
                (tx % 2 == 0 ? writer : second.publisher("shared", Codec.utf8())).publishAll(c, batch);
                c.commit();
            }
        }
        int total = sent;
        await().atMost(Duration.ofSeconds(90)).until(() -> got.size() >= total);
        Thread.sleep(500); // a row sent twice would arrive by now
        assertOrdered(got, total);
        assertThat(rows()).isZero();
        double byFirst = firstMeters.get("switchboard.outbox.relayed").counter().count();
        double bySecond = secondMeters.get("switchboard.outbox.relayed").counter().count();
        System.out.printf("outbox=two-relays db=postgresql sent=%d received=%d first=%.0f second=%.0f%n", total, got.size(), byFirst,
                bySecond);
        assertThat(byFirst + bySecond).as("acknowledged by the two relays").isEqualTo(total);
        assertThat(byFirst).as("the first relay's share").isPositive();
        assertThat(bySecond).as("the second relay's share").isPositive();
    }
}
