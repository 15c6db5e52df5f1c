package io.switchboard.it.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.JdbcIdempotencyStore;
import io.switchboard.Message;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.outbox.TransactionalInbox;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.fault.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The outbox and the inbox on RabbitMQ and PostgreSQL: the handler's effects (rows of an effects table with no unique
 * key, so a duplicate shows) commit with the processed mark, so a message delivered twice has its effect once.
 */
@DisplayName("Outbox and inbox on RabbitMQ, on PostgreSQL")
class OutboxInboxRabbitTest extends OutboxSupport {

    private final String effects = run + "_effects";
    private final String processed = run + "_processed";

    /** An EXACTLY_ONCE consumer on the local RabbitMQ whose inbox handler writes an effect row per message. */
    private void inboxConsumer(String destination, FaultLedger ledger, Set<String> failOnce) throws Exception {
        dropAfter.add(effects);
        dropAfter.add(processed);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + effects + " (payload VARCHAR(32) NOT NULL, message_key VARCHAR(32))");
        }
        // tag::outbox-inbox[]
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db).table(processed).claimTimeout(Duration.ofSeconds(30)).build();
        Switchboard sb = closeAfter(Switchboard.builder().broker("rabbitmq").properties(rabbit()).idempotencyStore(store).build());
        TransactionalInbox inbox = TransactionalInbox.of(db, store);
        Subscription s = sb.subscriber(destination, Codec.utf8()).group("billing").delivery(Delivery.EXACTLY_ONCE)
                .subscribe(inbox.handler((m, ctx, c) -> {
                    ledger.consumed(m.key(), m.payload());
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + effects + " VALUES (?, ?)")) {
                        insert.setString(1, m.payload());
                        insert.setString(2, m.key());
                        insert.executeUpdate();
                    }
                    if (failOnce.remove(m.payload())) {
                        throw new IllegalStateException("failing once after the effect was written: it rolls back");
                    }
                }));
        // end::outbox-inbox[]
        s.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    /** {count(*), count(distinct payload)} of the effects table. */
    private long[] effectRows() throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT payload) FROM " + effects)) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    @Test
    @DisplayName("duplicates delivered (each message written twice with its id, some handlers failing after their write): effects once")
    void duplicatesHaveTheirEffectOnce() throws Exception {
        String orders = destination("dups");
        FaultLedger ledger = new FaultLedger("outbox-duplicates", "rabbitmq");
        Set<String> failOnce = ConcurrentHashMap.newKeySet();
        for (int n = 0; n < 500; n += 10) {
            failOnce.add(Integer.toString(n));
        }
        inboxConsumer(orders, ledger, failOnce);
        Switchboard app = closeAfter(Switchboard.builder().broker("rabbitmq").properties(rabbit()).build());
        Outbox outbox = closeAfter(Outbox.builder(app, db).table(table).build());
        OutboxPublisher<String> writer = outbox.publisher(orders, Codec.utf8());
        for (int start = 0; start < 500; start += 50) {
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                List<Message<String>> batch = new ArrayList<>();
                for (int n = start; n < start + 50; n++) {
                    Message<String> m = Message.builder(Integer.toString(n)).key("k" + n % 20).id("order-" + run + "-" + n).build();
                    batch.add(m);
                    batch.add(m); // the same id twice: two rows, two deliveries
                    ledger.published(m.payload());
                }
                writer.publishAll(c, batch);
                c.commit();
                batch.forEach(m -> ledger.acked(m.payload()));
            }
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> effectRows()[1] >= 500 && rows(table) == 0);
        Thread.sleep(1000);
        long[] e = effectRows();
        System.out.println(ledger.line() + " effects=" + e[0] + " effects_unique=" + e[1] + " effect_duplicates=" + (e[0] - e[1]));
        assertThat(failOnce).as("every failing handler ran").isEmpty();
        assertThat(e).as("effect rows, distinct").containsExactly(500, 500);
        assertThat(ledger.lostCount()).isZero();
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 8, unit = TimeUnit.MINUTES)
    @DisplayName("RabbitMQ unreachable for 30 s while 10,000 orders commit: the backlog grows, health DEGRADED, drains after; lost 0, duplicates 0 after the inbox")
    void brokerDown() throws Exception {
        String orders = destination("down");
        FaultLedger ledger = new FaultLedger("outbox-broker-down-30s", "rabbitmq");
        inboxConsumer(orders, ledger, ConcurrentHashMap.newKeySet());
        TcpProxy proxy = closeAfter(TcpProxy.start(RABBIT.host(), RABBIT.port()));
        Switchboard app = closeAfter(Switchboard.builder().broker("rabbitmq")
                .properties(Map.of("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/")).build());
        Outbox outbox = closeAfter(Outbox.builder(app, db).table(table).sendTimeout(Duration.ofSeconds(5))
                .backoff(Duration.ofMillis(100), Duration.ofSeconds(2)).degradedAfter(Duration.ofSeconds(10)).build());
        OutboxPublisher<String> writer = outbox.publisher(orders, Codec.utf8());
        commitTracked(writer, ledger, -1, 1); // the relay's publisher made while the broker is there
        await().atMost(Duration.ofSeconds(60)).until(() -> effectRows()[1] == 1);

        proxy.cut();
        long cutAt = System.nanoTime();
        long peak = 0;
        for (int batch = 0; batch < 100; batch++) {
            commitTracked(writer, ledger, batch * 100, 100);
            outbox.health(); // reads the backlog now
            peak = Math.max(peak, outbox.backlog());
            long due = cutAt + TimeUnit.MILLISECONDS.toNanos(300L * (batch + 1));
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait));
            }
        }
        BrokerHealth during = outbox.health();
        long backlogDuring = outbox.backlog();
        proxy.restore();
        long restoredAt = System.nanoTime();
        try {
            await().atMost(Duration.ofSeconds(150)).until(() -> effectRows()[1] >= 10_001 && rows(table) == 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            long[] now = effectRows();
            StringBuilder dump = new StringBuilder();
            Thread.getAllStackTraces().forEach((t, stack) -> {
                if (t.getName().startsWith("switchboard")) {
                    dump.append('\n').append(t.getName()).append(' ').append(t.getState());
                    for (int i = 0; i < Math.min(stack.length, 25); i++) {
                        dump.append("\n    at ").append(stack[i]);
                    }
                }
            });
            throw new AssertionError("not drained: rows " + rows(table) + ", effects " + now[0] + " (" + now[1] + " distinct), "
                    + ledger.line() + ", health " + outbox.health() + dump, e);
        }
        long drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restoredAt);
        Thread.sleep(1000);
        long[] e = effectRows();
        System.out.println(ledger.line() + " backlog_peak=" + Math.max(peak, backlogDuring) + " drain_ms=" + drainMillis
                + " effects=" + e[0] + " effects_unique=" + e[1] + " effect_duplicates=" + (e[0] - e[1]) + " health_during="
                + during.status());
        assertThat(backlogDuring).as("backlog at the end of the outage").isGreaterThanOrEqualTo(9_000);
        assertThat(during.status()).isEqualTo(BrokerHealth.Status.DEGRADED);
        assertThat(ledger.lostCount()).as("lost").isZero();
        assertThat(e).as("effect rows, distinct: each order's effect once").containsExactly(10_001, 10_001);
        assertThat(outbox.health().status()).isEqualTo(BrokerHealth.Status.UP);
    }

    private void commitTracked(OutboxPublisher<String> writer, FaultLedger ledger, int from, int count) throws Exception {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            List<Message<String>> batch = new ArrayList<>(count);
            for (int n = from; n < from + count; n++) {
                batch.add(Message.of("k" + Math.floorMod(n, 100), Integer.toString(n)));
                ledger.published(Integer.toString(n));
            }
            writer.publishAll(c, batch);
            c.commit();
            batch.forEach(m -> ledger.acked(m.payload()));
        }
    }
}
