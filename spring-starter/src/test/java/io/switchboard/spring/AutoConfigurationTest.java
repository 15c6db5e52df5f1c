package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Switchboard;
import io.switchboard.spring.internal.SwitchboardLifecycle;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("Auto-configuration: beans and conditions")
class AutoConfigurationTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
            SwitchboardAutoConfiguration.class, SwitchboardHealthAutoConfiguration.class));

    @Test
    @DisplayName("with nothing configured, the application runs on one in-memory instance named 'memory'")
    void memoryByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Switchboard.class).hasSingleBean(Publishers.class)
                    .hasSingleBean(CodecResolver.class).hasSingleBean(SwitchboardLifecycle.class);
            Switchboard switchboard = context.getBean(Switchboard.class);
            assertThat(switchboard.brokerId()).isEqualTo("memory");
            assertThat(switchboard.instanceName()).isEqualTo("memory");
        });
    }

    @Test
    @DisplayName("switchboard.enabled=false turns the starter off")
    void disabled() {
        runner.withPropertyValues("switchboard.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Switchboard.class)
                        .doesNotHaveBean(Publishers.class));
    }

    @Test
    @DisplayName("an application's own Switchboard bean wins, and is the one publishers and listeners use")
    void backsOff() {
        try (Switchboard own = Switchboard.builder().broker("memory").instanceName("own").build()) {
            runner.withBean("mine", Switchboard.class, () -> own, d -> d.setDestroyMethodName("")).run(context -> {
                assertThat(context).hasSingleBean(Switchboard.class);
                assertThat(context.getBean(Switchboard.class).instanceName()).isEqualTo("own");
                assertThat(context).hasSingleBean(Publishers.class);
            });
        }
    }

    @Test
    @DisplayName("the Switchboard bean is closed with the context")
    void closedWithContext() {
        Switchboard[] seen = new Switchboard[1];
        runner.run(context -> seen[0] = context.getBean(Switchboard.class));
        assertThatThrownBy(() -> seen[0].publisher("after-close", io.switchboard.Codec.utf8()))
                .isInstanceOf(io.switchboard.SwitchboardClosedException.class);
    }

    @Nested
    @DisplayName("each adapter's mapping applies only when its jar is on the classpath")
    class AdapterConditions {

        @Test
        @DisplayName("all three adapters present: three mappers plus memory")
        void allPresent() {
            runner.run(context -> assertThat(context.getBeansOfType(BrokerInstanceMapper.class).values())
                    .extracting(BrokerInstanceMapper::type)
                    .containsExactlyInAnyOrder("memory", "kafka", "rabbitmq", "rocketmq"));
        }

        @Test
        @DisplayName("without the Kafka adapter, no Kafka mapping")
        void kafkaAbsent() {
            runner.withClassLoader(new FilteredClassLoader("io.switchboard.kafka"))
                    .withBean(Switchboard.class, () -> Switchboard.create("memory"))
                    .run(context -> assertThat(context.getBeansOfType(BrokerInstanceMapper.class).values())
                            .extracting(BrokerInstanceMapper::type)
                            .containsExactlyInAnyOrder("memory", "rabbitmq", "rocketmq"));
        }

        @Test
        @DisplayName("without the RabbitMQ and RocketMQ adapters, only Kafka and memory")
        void onlyKafka() {
            runner.withClassLoader(new FilteredClassLoader("io.switchboard.rabbit", "io.switchboard.rocketmq"))
                    .withBean(Switchboard.class, () -> Switchboard.create("memory"))
                    .run(context -> assertThat(context.getBeansOfType(BrokerInstanceMapper.class).values())
                            .extracting(BrokerInstanceMapper::type).containsExactlyInAnyOrder("memory", "kafka"));
        }
    }

    @Nested
    @DisplayName("health")
    class Health {

        @Test
        @DisplayName("one indicator per instance, under 'switchboard'")
        void indicatorPerInstance() {
            runner.run(context -> {
                assertThat(context).hasBean("switchboardHealthContributor");
                var composite = (org.springframework.boot.health.contributor.CompositeHealthContributor)
                        context.getBean("switchboardHealthContributor", HealthContributor.class);
                var indicator = (HealthIndicator) composite.getContributor("memory");
                var health = indicator.health();
                assertThat(health.getStatus().getCode()).isEqualTo("UP");
                assertThat(health.getDetails()).containsEntry("broker", "memory").containsKey("reason");
            });
        }

        @Test
        @DisplayName("an instance whose consumers lag past switchboard.lag-threshold is DEGRADED (HTTP 200), with the group named")
        void degradedByLag() {
            var indicator = new io.switchboard.spring.actuate.BrokerInstanceHealthIndicator("memory",
                    t -> io.switchboard.spi.BrokerHealth.degraded("in-memory broker; consumer lag of group 'billing' on "
                            + "'orders' is 300 records, above switchboard.lag-threshold=50"), java.time.Duration.ofSeconds(1));
            var health = indicator.health();
            assertThat(health.getStatus().getCode()).isEqualTo("DEGRADED");
            assertThat(health.getDetails()).containsEntry("broker", "memory");
            assertThat(health.getDetails().get("reason").toString()).contains("group 'billing'");
        }

        @Test
        @DisplayName("absent without spring-boot-health")
        void absentWithoutHealth() {
            runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("switchboardHealthContributor"));
        }

        @Test
        @DisplayName("management.health.switchboard.enabled=false turns it off")
        void disabled() {
            runner.withPropertyValues("management.health.switchboard.enabled=false")
                    .run(context -> assertThat(context).doesNotHaveBean("switchboardHealthContributor"));
        }
    }
}
