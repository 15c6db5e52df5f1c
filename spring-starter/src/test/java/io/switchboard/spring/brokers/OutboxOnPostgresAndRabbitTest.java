package io.switchboard.spring.brokers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.outbox.Outbox;
import io.switchboard.spring.OutboxShop;
import io.switchboard.spring.OutboxShop.Billing;
import io.switchboard.spring.OutboxShop.Orders;
import io.switchboard.spring.internal.OutboxLifecycle;
import io.switchboard.spring.internal.SwitchboardLifecycle;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The outbox as an application uses it, on the local PostgreSQL (Boot's pooled DataSource, its
 * DataSourceTransactionManager, the relay woken by LISTEN/NOTIFY) and the local RabbitMQ: a {@code @Transactional}
 * service writes an order and publishes "order placed"; a listener receives it from RabbitMQ.
 */
@SpringBootTest(classes = OutboxOnPostgresAndRabbitTest.Shop.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
@DisplayName("The outbox on PostgreSQL, relayed to RabbitMQ")
class OutboxOnPostgresAndRabbitTest {

    static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    static final String TOPIC = Brokers.destination("order-placed");
    static final String OUTBOX_TABLE = "sbt_outbox_" + Brokers.RUN;
    static final String ORDER_TABLE = "sbt_order_" + Brokers.RUN;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        try (Connection c = DriverManager.getConnection(POSTGRES_URL, "postgres", "")) {
            assertThat(c.isValid(2)).isTrue();
        } catch (SQLException e) {
            throw new AssertionError("PostgreSQL is needed at 127.0.0.1:5432 (database test, user postgres, trust auth): start"
                    + " it with 'bash .ci/postgres-up.sh' (" + e.getMessage() + ")", e);
        }
        registry.add("spring.datasource.url", () -> POSTGRES_URL);
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("switchboard.instances.rabbit.type", () -> "rabbitmq");
        registry.add("switchboard.instances.rabbit.host", () -> Brokers.rabbit().host());
        registry.add("switchboard.instances.rabbit.port", () -> Brokers.rabbit().port());
        registry.add("switchboard.outbox.enabled", () -> "true");
        registry.add("switchboard.outbox.table", () -> OUTBOX_TABLE);
        registry.add("switchboard.outbox.initialize-schema", () -> "always");
        registry.add("app.topic", () -> TOPIC);
        registry.add("app.order-table", () -> ORDER_TABLE);
    }

    @Autowired
    Orders orders;

    @Autowired
    Billing billing;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    Outbox outbox;

    @Autowired
    OutboxLifecycle relay;

    @Autowired
    SwitchboardLifecycle listeners;

    @Autowired
    HealthContributor switchboardHealthContributor;

    @AfterAll
    void dropTables() throws Exception {
        relay.stop();
        listeners.stop(); // before their queues go

        jdbc.sql("DROP TABLE IF EXISTS " + OUTBOX_TABLE).update();
        jdbc.sql("DROP TABLE IF EXISTS " + OUTBOX_TABLE + "_lock").update();
        jdbc.sql("DROP TABLE IF EXISTS " + OUTBOX_TABLE + "_parked").update();
        jdbc.sql("DROP FUNCTION IF EXISTS " + OUTBOX_TABLE + "_notify()").update();
        jdbc.sql("DROP TABLE IF EXISTS " + ORDER_TABLE).update();
        Brokers.deleteRabbitLeftovers();
    }

    long outboxRows() {
        return jdbc.sql("SELECT count(*) FROM " + OUTBOX_TABLE).query(Long.class).single();
    }

    @Test
    @DisplayName("committed: published once, through RabbitMQ, with the id publish gave; the relay is woken by LISTEN/NOTIFY")
    void committedPublishedOnce() {
        assertThat(outbox.toString()).contains("on POSTGRESQL");
        assertThat(jdbc.sql("SELECT count(*) FROM pg_trigger WHERE tgname = ?").param(OUTBOX_TABLE + "_notify")
                .query(Long.class).single()).as("notify trigger").isEqualTo(1L);
        String first = orders.place("c1", "o-1", false);
        String last = orders.place("c1", "o-2", false); // same key: a second send of o-1 would arrive before it
        await().atMost(Duration.ofSeconds(30)).until(() -> billing.received.contains("o-2@rabbit/" + last));
        assertThat(billing.received).containsExactly("o-1@rabbit/" + first, "o-2@rabbit/" + last);
        await().atMost(Duration.ofSeconds(30)).until(() -> outboxRows() == 0);
        assertThat(orders.rows("c1")).isEqualTo(2);
        HealthIndicator health = (HealthIndicator) ((CompositeHealthContributor) switchboardHealthContributor).getContributor("outbox");
        assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
        assertThat(health.health().getDetails()).containsEntry("table", OUTBOX_TABLE).containsEntry("relay", "running");
    }

    @Test
    @DisplayName("rolled back: neither the order nor its message reach PostgreSQL or RabbitMQ")
    void rolledBackPublishesNothing() {
        assertThatThrownBy(() -> orders.place("c2", "refused", true)).isInstanceOf(IllegalStateException.class);
        assertThat(outboxRows()).isZero();
        assertThat(orders.rows("c2")).isZero();
        String marker = orders.place("c2", "accepted", false);
        await().atMost(Duration.ofSeconds(30)).until(() -> billing.received.contains("accepted@rabbit/" + marker));
        assertThat(billing.received).filteredOn(s -> s.contains("refused")).isEmpty();
    }

    /** The application. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(OutboxShop.Beans.class)
    static class Shop {}
}
