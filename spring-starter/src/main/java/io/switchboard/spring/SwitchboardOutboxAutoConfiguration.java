package io.switchboard.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.ConfigurationException;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxException;
import io.switchboard.spring.internal.DefaultSwitchboardOutbox;
import io.switchboard.spring.internal.OutboxLifecycle;
import java.time.Duration;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The transactional outbox from {@code application.yml} ({@code switchboard.outbox.*}), when
 * {@code switchboard.outbox.enabled=true}: the core {@link Outbox} on the application's {@code DataSource} (its tables
 * checked, and created as {@code initialize-schema} says, after Flyway, Liquibase or Boot's SQL scripts ran), the
 * {@link SwitchboardOutbox} whose publishers join the current Spring-managed transaction, and the relay run as a
 * {@code SmartLifecycle}. Meters go to Boot's {@code MeterRegistry}; the health indicator and the actuator endpoint
 * pick the outbox up. Enabled without a single {@code DataSource} (or without spring-boot-jdbc), startup fails saying so.
 */
@AutoConfiguration(after = SwitchboardAutoConfiguration.class, afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration"})
@ConditionalOnClass(Outbox.class)
@ConditionalOnBean(Switchboard.class)
@ConditionalOnBooleanProperty("switchboard.outbox.enabled")
public class SwitchboardOutboxAutoConfiguration {

    /** The outbox on the application's single DataSource. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.jdbc.datasource.DataSourceUtils",
            "org.springframework.boot.jdbc.EmbeddedDatabaseConnection"})
    @ConditionalOnSingleCandidate(DataSource.class)
    @EnableConfigurationProperties(OutboxProperties.class)
    @Import(DatabaseInitializationDependencyConfigurer.class)
    static class OnDataSource {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        @DependsOnDatabaseInitialization
        Outbox switchboardOutboxCore(Switchboard switchboard, DataSource dataSource, OutboxProperties properties,
                ObjectProvider<MeterRegistry> meterRegistry) {
            Outbox.Builder builder = Outbox.builder(switchboard, dataSource).autoStart(false);
            set("table", properties.getTable(), builder::table);
            set("buckets", properties.getBuckets(), builder::buckets);
            set("batch-size", properties.getBatchSize(), builder::batchSize);
            set("buckets-per-claim", properties.getBucketsPerClaim(), builder::bucketsPerClaim);
            set("relay-threads", properties.getRelayThreads(), builder::relayThreads);
            set("retention", properties.getRetention(), builder::retention);
            set("poll", properties.getPoll(), p -> builder.poll(p.getMin(), p.getMax()));
            set("backoff", properties.getBackoff(), b -> builder.backoff(b.getMin(), b.getMax()));
            set("send-timeout", properties.getSendTimeout(), builder::sendTimeout);
            set("degraded-after", properties.getDegradedAfter(), builder::degradedAfter);
            set("stats-interval", properties.getStatsInterval(), builder::statsInterval);
            set("delivery", properties.getDelivery(), builder::delivery);
            set("max-attempts", properties.getMaxAttempts(), builder::maxAttempts);
            set("max-batch-bytes", properties.getMaxBatchBytes(), size -> builder.maxBatchBytes(size.toBytes()));
            MeterRegistry registry = meterRegistry.getIfUnique();
            if (registry != null) {
                builder.meterRegistry(registry);
            }
            DatabaseInitializationMode mode = properties.getInitializeSchema() == null ? DatabaseInitializationMode.EMBEDDED
                    : properties.getInitializeSchema();
            boolean create = switch (mode) {
                case ALWAYS -> true;
                case NEVER -> false;
                case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
            };
            builder.createSchema(create);
            try {
                return builder.build();
            } catch (OutboxException e) {
                if (create) {
                    throw e;
                }
                throw new OutboxException(e.getMessage() + ". In Spring: switchboard.outbox.initialize-schema is '"
                        + mode.name().toLowerCase(java.util.Locale.ROOT) + "'" + (mode == DatabaseInitializationMode.EMBEDDED
                                ? " and this database is not an embedded one" : "") + ", so the tables are not created on"
                        + " start; set it to 'always', or run the script in a Flyway/Liquibase migration", e);
            }
        }

        @Bean
        @ConditionalOnMissingBean
        SwitchboardOutbox switchboardOutbox(Outbox switchboardOutboxCore, DataSource dataSource, CodecResolver codecs) {
            return new DefaultSwitchboardOutbox(switchboardOutboxCore, dataSource, codecs);
        }

        @Bean
        @ConditionalOnMissingBean
        OutboxLifecycle switchboardOutboxLifecycle(Outbox switchboardOutboxCore, OutboxProperties properties) {
            return new OutboxLifecycle(switchboardOutboxCore, properties.isAutoStartup());
        }

        /** Hands one property to the builder; the builder's refusal becomes one naming the property. */
        private static <V> void set(String key, V value, Consumer<V> setter) {
            try {
                setter.accept(value);
            } catch (ConfigurationException | NullPointerException e) {
                throw new InvalidSwitchboardPropertyException("switchboard.outbox." + key, printable(value),
                        String.valueOf(e.getMessage()), "Correct switchboard.outbox." + key
                                + " in application.yml (the defaults are in the starter's README, section Outbox)");
            }
        }

        private static String printable(Object value) {
            if (value instanceof OutboxProperties.Interval i) {
                return "min " + i.getMin() + ", max " + i.getMax();
            }
            if (value instanceof Duration d) {
                return d.toString();
            }
            return value == null ? null : value.toString();
        }
    }

    /** Enabled, but there is no single DataSource to put the outbox on (or no spring-boot-jdbc): startup fails saying so. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(NoUsableDataSource.class)
    static class WithoutDataSource {

        @Bean
        Object switchboardOutboxCore(org.springframework.beans.factory.ListableBeanFactory beans) {
            String[] reactive = r2dbcConnectionFactories(beans);
            if (reactive.length > 0) {
                throw new InvalidSwitchboardPropertyException("switchboard.outbox.enabled", "true",
                        "the outbox writes its row with JDBC in the application's JDBC transaction, and this application's"
                                + " database access is R2DBC (ConnectionFactory bean '" + reactive[0] + "'), whose reactive"
                                + " transactions a JDBC write cannot join",
                        "The outbox supports JDBC DataSources only: add a DataSource for the same database"
                                + " (spring-boot-starter-jdbc and spring.datasource.url) and run the writes that publish in"
                                + " a JDBC @Transactional method, or set switchboard.outbox.enabled=false");
            }
            throw new InvalidSwitchboardPropertyException("switchboard.outbox.enabled", "true",
                    "the outbox needs the application's DataSource, and there is not exactly one DataSource bean (or no"
                            + " spring-boot-jdbc on the classpath)",
                    "Add spring-boot-starter-jdbc (or spring-boot-starter-data-jpa) and spring.datasource.url, mark one"
                            + " DataSource @Primary when there are several, or set switchboard.outbox.enabled=false");
        }
    }

    /** The names of the application's R2DBC ConnectionFactory beans, when R2DBC is on the classpath. */
    static String[] r2dbcConnectionFactories(org.springframework.beans.factory.ListableBeanFactory beans) {
        String type = "io.r2dbc.spi.ConnectionFactory";
        ClassLoader loader = SwitchboardOutboxAutoConfiguration.class.getClassLoader();
        if (!org.springframework.util.ClassUtils.isPresent(type, loader)) {
            return new String[0];
        }
        return beans.getBeanNamesForType(org.springframework.util.ClassUtils.resolveClassName(type, loader), true, false);
    }

    /** Matches when the outbox cannot be put on a DataSource. */
    static final class NoUsableDataSource extends NoneNestedConditions {

        NoUsableDataSource() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnClass(name = {"org.springframework.jdbc.datasource.DataSourceUtils",
                "org.springframework.boot.jdbc.EmbeddedDatabaseConnection"})
        @ConditionalOnSingleCandidate(DataSource.class)
        static final class SingleDataSource {}
    }
}
