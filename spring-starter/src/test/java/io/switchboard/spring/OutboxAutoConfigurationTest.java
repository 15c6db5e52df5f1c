package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxException;
import io.switchboard.spring.actuate.FleetHealthIndicator;
import io.switchboard.spring.actuate.SwitchboardEndpoint;
import io.switchboard.spring.OutboxShop.Billing;
import io.switchboard.spring.OutboxShop.Orders;
import io.switchboard.spring.internal.OutboxLifecycle;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox in a Spring application on H2 (in memory) and the in-memory broker: a {@code @Transactional} service
 * writes an order and publishes "order placed" through {@link SwitchboardOutbox}; a listener receives what the relay
 * sends.
 */
@DisplayName("The transactional outbox in a Spring application (H2, in-memory broker)")
class OutboxAutoConfigurationTest {

    static final String DESTINATION = "sbt-order-placed";

    /** The application below in a context of its own: its own H2 database and in-memory broker. */
    static ApplicationContextRunner runner() {
        return base().withUserConfiguration(OutboxShop.Beans.class);
    }

    /** A context of its own, without the application's beans. */
    static ApplicationContextRunner base() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, JdbcClientAutoConfiguration.class,
                        SwitchboardAutoConfiguration.class, SwitchboardOutboxAutoConfiguration.class,
                        SwitchboardHealthAutoConfiguration.class, SwitchboardEndpointAutoConfiguration.class,
                        EndpointAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:outbox-" + run + ";DB_CLOSE_DELAY=-1",
                        "switchboard.instances.m.type=memory", "switchboard.instances.m.properties.broker=outbox-" + run,
                        "switchboard.outbox.enabled=true", "switchboard.outbox.poll.min=5ms",
                        "switchboard.outbox.poll.max=50ms", "management.endpoints.web.exposure.include=switchboard",
                        "app.topic=" + DESTINATION)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new);
    }

    static long outboxRows(AssertableApplicationContext context) {
        String table = context.getBean(Outbox.class).table();
        return context.getBean(JdbcClient.class).sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }

    @Test
    @DisplayName("committed inside @Transactional (and TransactionTemplate): each message published once, with the id publish gave")
    void committedPublishedOnce() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            Orders orders = context.getBean(Orders.class);
            Billing billing = context.getBean(Billing.class);
            String first = orders.place("c1", "o-1", false);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            String second = tx.execute(status -> context.getBean(SwitchboardOutbox.class)
                    .publish(DESTINATION, Message.of("c1", "o-2")));
            // a later order of the same customer: per-key order puts any second send of o-1 or o-2 before it
            String last = orders.place("c1", "o-3", false);
            await().atMost(Duration.ofSeconds(30)).until(() -> billing.received.contains("o-3@m/" + last));
            assertThat(billing.received).containsExactly("o-1@m/" + first, "o-2@m/" + second, "o-3@m/" + last);
            await().atMost(Duration.ofSeconds(30)).until(() -> outboxRows(context) == 0);
            assertThat(orders.rows("c1")).isEqualTo(2);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> registry.find("switchboard.outbox.relayed")
                    .tag("destination", DESTINATION).counter() != null);
            await().atMost(Duration.ofSeconds(30)).until(() -> registry.get("switchboard.outbox.relayed")
                    .tag("destination", DESTINATION).counter().count() == 3.0);
        });
    }

    @Test
    @DisplayName("rolled back (the service throws): neither the order nor its message; nothing published")
    void rolledBackPublishesNothing() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            Billing billing = context.getBean(Billing.class);
            assertThatThrownBy(() -> orders.place("c2", "refused", true)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("payment refused");
            assertThat(outboxRows(context)).as("outbox rows after the rollback").isZero();
            assertThat(orders.rows("c2")).isZero();
            String marker = orders.place("c2", "accepted", false);
            await().atMost(Duration.ofSeconds(30)).until(() -> billing.received.contains("accepted@m/" + marker));
            assertThat(billing.received).containsExactly("accepted@m/" + marker);
        });
    }

    @Test
    @DisplayName("no transaction, or a read-only one: refused naming @Transactional and TransactionTemplate; nothing written")
    void noTransactionRefused() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.placeWithoutTransaction("c3", "o-9")).isInstanceOf(OutboxException.class)
                    .hasMessageContaining("no transaction is active").hasMessageContaining("@Transactional")
                    .hasMessageContaining("TransactionTemplate").hasMessageContaining(DESTINATION)
                    .hasMessageContaining("Nothing was written");
            assertThatThrownBy(() -> context.getBean(SwitchboardOutbox.class).publish(DESTINATION, Message.of("x")))
                    .isInstanceOf(OutboxException.class).hasMessageContaining("@Transactional");
            assertThatThrownBy(() -> orders.placeReadOnly("c3", "o-10")).isInstanceOf(OutboxException.class)
                    .hasMessageContaining("read-only").hasMessageContaining("readOnly = true");
            assertThat(outboxRows(context)).isZero();
        });
    }

    @Test
    @DisplayName("a transaction of another DataSource's manager: refused, naming the transaction manager to use")
    void transactionOfAnotherDataSource() {
        runner().withUserConfiguration(TwoDataSources.class).run(context -> {
            assertThat(context).hasNotFailed();
            DataSource other = context.getBean("otherDataSource", DataSource.class);
            TransactionTemplate otherTx = new TransactionTemplate(new DataSourceTransactionManager(other));
            assertThatThrownBy(() -> otherTx.executeWithoutResult(status -> context.getBean(SwitchboardOutbox.class)
                    .publish(DESTINATION, Message.of("x")))).isInstanceOf(OutboxException.class)
                    .hasMessageContaining("holds no connection of the outbox's DataSource")
                    .hasMessageContaining("DataSourceTransactionManager");
            assertThat(outboxRows(context)).isZero();
        });
    }

    @Test
    @DisplayName("a pool lending auto-commit=false connections, a transaction of another DataSource's manager, a query on"
            + " the outbox's DataSource first: refused, nothing written")
    void anotherManagerWithAutoCommitOffPool() {
        runner().withUserConfiguration(PoolAndOther.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DataSource main = context.getBean("dataSource", DataSource.class);
                    DataSource other = context.getBean("otherDataSource", DataSource.class);
                    TransactionTemplate otherTx = new TransactionTemplate(new DataSourceTransactionManager(other));
                    SwitchboardOutbox outbox = context.getBean(SwitchboardOutbox.class);
                    assertThatThrownBy(() -> otherTx.executeWithoutResult(status -> outbox.publish(DESTINATION, Message.of("x"))))
                            .isInstanceOf(OutboxException.class).hasMessageContaining("holds no connection of the outbox's DataSource");
                    // JdbcTemplate binds a connection of its own for the outbox's DataSource inside the other transaction
                    assertThatThrownBy(() -> otherTx.executeWithoutResult(status -> {
                        new org.springframework.jdbc.core.JdbcTemplate(main).queryForObject("SELECT 1", Integer.class);
                        outbox.publish(DESTINATION, Message.of("y"));
                    })).isInstanceOf(OutboxException.class).hasMessageContaining("holds no connection of the outbox's DataSource");
                    assertThat(outboxRows(context)).isZero();
                });
    }

    /** The application's DataSource, a pool lending auto-commit=false connections (primary), and another one. */
    @Configuration(proxyBeanMethods = false)
    static class PoolAndOther {
        @Bean
        @Primary
        DataSource dataSource() {
            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
            config.setJdbcUrl("jdbc:h2:mem:pool-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            config.setAutoCommit(false);
            config.setMaximumPoolSize(8);
            return new com.zaxxer.hikari.HikariDataSource(config);
        }

        @Bean
        DataSource otherDataSource() {
            return TwoDataSources.h2("other-" + UUID.randomUUID());
        }
    }

    /** The application's DataSource (primary) and another one. */
    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {
        @Bean
        @Primary
        DataSource dataSource() {
            return h2("main-" + UUID.randomUUID());
        }

        @Bean
        DataSource otherDataSource() {
            return h2("other-" + UUID.randomUUID());
        }

        static DataSource h2(String name) {
            return new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "");
        }
    }

    @Nested
    @DisplayName("properties")
    class Properties {

        @Test
        @DisplayName("switchboard.outbox.* bind, and the outbox is made with them")
        void bind() {
            runner().withPropertyValues("switchboard.outbox.table=shop_events", "switchboard.outbox.buckets=8",
                    "switchboard.outbox.batch-size=50", "switchboard.outbox.buckets-per-claim=4",
                    "switchboard.outbox.relay-threads=2",
                    "switchboard.outbox.retention=7d", "switchboard.outbox.poll.min=20ms", "switchboard.outbox.poll.max=2s",
                    "switchboard.outbox.backoff.min=200ms", "switchboard.outbox.backoff.max=30s",
                    "switchboard.outbox.send-timeout=10s", "switchboard.outbox.degraded-after=5m",
                    "switchboard.outbox.stats-interval=1s", "switchboard.outbox.delivery=exactly-once",
                    "switchboard.outbox.max-attempts=4", "switchboard.outbox.max-batch-bytes=4MB",
                    "switchboard.outbox.initialize-schema=always", "switchboard.outbox.auto-startup=false").run(context -> {
                        assertThat(context).hasNotFailed();
                        OutboxProperties p = context.getBean(OutboxProperties.class);
                        assertThat(p.getTable()).isEqualTo("shop_events");
                        assertThat(p.getBuckets()).isEqualTo(8);
                        assertThat(p.getBatchSize()).isEqualTo(50);
                        assertThat(p.getBucketsPerClaim()).isEqualTo(4);
                        assertThat(p.getRelayThreads()).isEqualTo(2);
                        assertThat(p.getRetention()).isEqualTo(Duration.ofDays(7));
                        assertThat(p.getPoll().getMin()).isEqualTo(Duration.ofMillis(20));
                        assertThat(p.getPoll().getMax()).isEqualTo(Duration.ofSeconds(2));
                        assertThat(p.getBackoff().getMin()).isEqualTo(Duration.ofMillis(200));
                        assertThat(p.getBackoff().getMax()).isEqualTo(Duration.ofSeconds(30));
                        assertThat(p.getSendTimeout()).isEqualTo(Duration.ofSeconds(10));
                        assertThat(p.getDegradedAfter()).isEqualTo(Duration.ofMinutes(5));
                        assertThat(p.getStatsInterval()).isEqualTo(Duration.ofSeconds(1));
                        assertThat(p.getDelivery()).isEqualTo(Delivery.EXACTLY_ONCE);
                        assertThat(p.getMaxAttempts()).isEqualTo(4);
                        assertThat(p.getMaxBatchBytes().toBytes()).isEqualTo(4L * 1024 * 1024);
                        assertThat(p.getInitializeSchema()).isEqualTo(DatabaseInitializationMode.ALWAYS);
                        Outbox outbox = context.getBean(Outbox.class);
                        assertThat(outbox.table()).isEqualTo("shop_events");
                        assertThat(outbox.toString()).contains("8 buckets").contains("2 relay threads").contains("relay stopped");
                        assertThat(outboxRows(context)).isZero();
                        assertThat(context.getBean(OutboxLifecycle.class).isRunning()).as("auto-startup=false").isFalse();
                    });
        }

        @Test
        @DisplayName("off unless switchboard.outbox.enabled=true")
        void offByDefault() {
            base().withPropertyValues("switchboard.outbox.enabled=false")
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class)
                            .doesNotHaveBean(SwitchboardOutbox.class).doesNotHaveBean(OutboxLifecycle.class));
        }

        @Test
        @DisplayName("a value the outbox refuses fails startup naming the property, the value and the range")
        void badValue() {
            runner().withPropertyValues("switchboard.outbox.batch-size=0").run(context -> {
                assertThat(context).hasFailed();
                InvalidSwitchboardPropertyException e = cause(context.getStartupFailure(), InvalidSwitchboardPropertyException.class);
                assertThat(e.property()).isEqualTo("switchboard.outbox.batch-size");
                assertThat(e.value()).isEqualTo("0");
                assertThat(e.getMessage()).contains("1 to 10000");
            });
            runner().withPropertyValues("switchboard.outbox.poll.min=1s", "switchboard.outbox.poll.max=10ms").run(context -> {
                InvalidSwitchboardPropertyException e = cause(context.getStartupFailure(), InvalidSwitchboardPropertyException.class);
                assertThat(e.property()).isEqualTo("switchboard.outbox.poll");
                assertThat(e.getMessage()).contains("below poll min");
            });
            runner().withPropertyValues("switchboard.outbox.delivery=at-most-once").run(context -> {
                InvalidSwitchboardPropertyException e = cause(context.getStartupFailure(), InvalidSwitchboardPropertyException.class);
                assertThat(e.property()).isEqualTo("switchboard.outbox.delivery");
                assertThat(e.getMessage()).contains("AT_MOST_ONCE").contains("AT_LEAST_ONCE");
            });
        }

        @Test
        @DisplayName("initialize-schema=never and no table: startup fails naming the table, the script and initialize-schema")
        void neverCreates() {
            base().withPropertyValues("switchboard.outbox.initialize-schema=never")
                    .run(context -> {
                        OutboxException e = cause(context.getStartupFailure(), OutboxException.class);
                        assertThat(e.getMessage()).contains("switchboard_outbox").contains("schema-h2.sql")
                                .contains("switchboard.outbox.initialize-schema is 'never'").contains("'always'");
                    });
        }

        @Test
        @DisplayName("enabled without a DataSource: startup fails saying what to add")
        void enabledWithoutDataSource() {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class,
                            SwitchboardOutboxAutoConfiguration.class))
                    .withPropertyValues("switchboard.outbox.enabled=true").run(context -> {
                        InvalidSwitchboardPropertyException e = cause(context.getStartupFailure(),
                                InvalidSwitchboardPropertyException.class);
                        assertThat(e.property()).isEqualTo("switchboard.outbox.enabled");
                        assertThat(e.action()).contains("spring-boot-starter-jdbc").contains("spring.datasource.url");
                    });
        }

        @Test
        @DisplayName("enabled in an R2DBC application without a DataSource: startup fails saying R2DBC's transactions"
                + " cannot be joined and what to add")
        void enabledOnR2dbc() {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class,
                            SwitchboardOutboxAutoConfiguration.class))
                    .withBean("connectionFactory", io.r2dbc.spi.ConnectionFactory.class, () -> (io.r2dbc.spi.ConnectionFactory)
                            java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                                    new Class<?>[] {io.r2dbc.spi.ConnectionFactory.class}, (proxy, method, args) -> null))
                    .withPropertyValues("switchboard.outbox.enabled=true").run(context -> {
                        InvalidSwitchboardPropertyException e = cause(context.getStartupFailure(),
                                InvalidSwitchboardPropertyException.class);
                        assertThat(e.property()).isEqualTo("switchboard.outbox.enabled");
                        assertThat(e.getMessage()).contains("R2DBC").contains("connectionFactory");
                        assertThat(e.action()).contains("JDBC DataSources only").contains("spring.datasource.url");
                    });
        }

        @Test
        @DisplayName("without spring-jdbc on the classpath: off, the starter runs as before; enabled, startup fails saying so")
        void withoutSpringJdbc() {
            ApplicationContextRunner noJdbc = new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class,
                            SwitchboardOutboxAutoConfiguration.class, SwitchboardHealthAutoConfiguration.class))
                    .withClassLoader(new FilteredClassLoader("org.springframework.jdbc", "org.springframework.boot.jdbc"));
            noJdbc.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class)
                    .hasBean("switchboardHealthContributor"));
            noJdbc.withPropertyValues("switchboard.outbox.enabled=true").run(context -> assertThat(
                    cause(context.getStartupFailure(), InvalidSwitchboardPropertyException.class).property())
                    .isEqualTo("switchboard.outbox.enabled"));
        }
    }

    @Nested
    @DisplayName("actuator, meters and lifecycle")
    class Operations {

        @Test
        @DisplayName("health: /switchboard/outbox beside the broker's, DEGRADED while an old message waits, UP once it is sent")
        void health() {
            runner().withPropertyValues("switchboard.outbox.auto-startup=false").run(context -> {
                HealthIndicator outbox = outboxIndicator(context);
                Health up = outbox.health();
                assertThat(up.getStatus().getCode()).isEqualTo("UP");
                assertThat(up.getDetails()).containsEntry("table", "switchboard_outbox").containsEntry("relay", "stopped")
                        .containsEntry("backlog", 0L);
                TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                tx.executeWithoutResult(status -> context.getBean(SwitchboardOutbox.class).publish(DESTINATION,
                        Message.builder("late").key("c4").timestamp(Instant.now().minus(Duration.ofMinutes(2))).build()));
                assertThat(outbox.health().getStatus().getCode()).as("an old message written now").isEqualTo("UP");
                context.getBean(JdbcClient.class).sql("UPDATE switchboard_outbox SET written_micros = written_micros - 120000000")
                        .update(); // as if written 2 minutes ago
                Health degraded = outbox.health();
                assertThat(degraded.getStatus().getCode()).isEqualTo(FleetHealthIndicator.DEGRADED_CODE);
                assertThat(degraded.getDetails()).containsEntry("backlog", 1L);
                assertThat((Long) degraded.getDetails().get("oldestUnsentAgeMs")).isGreaterThan(60_000L);
                assertThat(degraded.getDetails().get("reason").toString()).contains("backlog 1 rows");

                context.getBean(OutboxLifecycle.class).start();
                Billing billing = context.getBean(Billing.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> billing.received.size() == 1);
                await().atMost(Duration.ofSeconds(30)).until(() -> outbox.health().getStatus().getCode().equals("UP"));
                assertThat(outbox.health().getDetails()).containsEntry("relay", "running");
                var composite = (CompositeHealthContributor) context.getBean("switchboardHealthContributor", HealthContributor.class);
                assertThat(((HealthIndicator) composite.getContributor("m")).health().getStatus().getCode()).isEqualTo("UP");
            });
        }

        @Test
        @DisplayName("the switchboard endpoint shows the outbox's table, relay, backlog and oldest age; the gauges are in the context's registry")
        void endpointAndMeters() {
            runner().run(context -> {
                Map<String, Object> view = context.getBean(SwitchboardEndpoint.class).switchboard();
                assertThat(view).containsKey("outbox");
                @SuppressWarnings("unchecked")
                Map<String, Object> outbox = (Map<String, Object>) view.get("outbox");
                assertThat(outbox).containsEntry("table", "switchboard_outbox").containsEntry("relay", "running")
                        .containsEntry("backlog", 0L).containsKey("oldestUnsentAgeMs");
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get("switchboard.outbox.backlog").tag("table", "switchboard_outbox").gauge().value()).isZero();
                assertThat(registry.find("switchboard.outbox.oldest.age").gauge()).isNotNull();
            });
        }

        @Test
        @DisplayName("the relay runs with the context and stops when it closes")
        void lifecycle() {
            Outbox[] seen = new Outbox[1];
            runner().run(context -> {
                seen[0] = context.getBean(Outbox.class);
                assertThat(seen[0].isRunning()).isTrue();
                assertThat(context.getBean(OutboxLifecycle.class).getPhase())
                        .isGreaterThan(io.switchboard.spring.internal.SwitchboardLifecycle.PHASE);
            });
            assertThat(seen[0].isRunning()).isFalse();
        }

        private HealthIndicator outboxIndicator(AssertableApplicationContext context) {
            var composite = (CompositeHealthContributor) context.getBean("switchboardHealthContributor", HealthContributor.class);
            return (HealthIndicator) composite.getContributor("outbox");
        }
    }

    static <E extends Throwable> E cause(Throwable failure, Class<E> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure, failure);
    }
}
