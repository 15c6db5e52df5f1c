package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Switchboard;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("Property groups become the Switchboard's configuration")
class PropertiesBindingTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class));

    private static Map<String, String> configOf(org.springframework.context.ApplicationContext context) {
        return context.getBean(Switchboard.class).config().properties();
    }

    @Test
    @DisplayName("a Kafka instance needs two lines: type and bootstrap-servers")
    void kafkaInTwoLines() {
        runner.withPropertyValues("switchboard.instances.main.type=kafka",
                "switchboard.instances.main.bootstrap-servers=localhost:9092,localhost:9093").run(context -> {
                    Switchboard switchboard = context.getBean(Switchboard.class);
                    assertThat(switchboard.brokerId()).isEqualTo("kafka");
                    assertThat(switchboard.instanceName()).isEqualTo("main");
                    assertThat(configOf(context)).containsEntry("kafka.bootstrap.servers", "localhost:9092,localhost:9093");
                });
    }

    @Test
    @DisplayName("RabbitMQ host, port, username, password and virtual-host compose the URI, encoded; toString masks the password")
    void rabbitParts() {
        runner.withPropertyValues("switchboard.instances.rabbit.type=rabbitmq",
                "switchboard.instances.rabbit.host=rabbit.example", "switchboard.instances.rabbit.port=5673",
                "switchboard.instances.rabbit.username=shop", "switchboard.instances.rabbit.password=p@ss w/rd",
                "switchboard.instances.rabbit.virtual-host=orders").run(context -> {
                    assertThat(configOf(context)).containsEntry("rabbitmq.uri",
                            "amqp://shop:p%40ss%20w%2Frd@rabbit.example:5673/orders");
                    assertThat(context.getBean(Switchboard.class).toString()).doesNotContain("p%40ss").doesNotContain("p@ss");
                });
    }

    @Test
    @DisplayName("a RabbitMQ uri wins and is passed as it is")
    void rabbitUri() {
        runner.withPropertyValues("switchboard.instances.rabbit.type=rabbitmq",
                "switchboard.instances.rabbit.uri=amqps://u:secret@host:5671/v").run(context ->
                        assertThat(configOf(context)).containsEntry("rabbitmq.uri", "amqps://u:secret@host:5671/v"));
    }

    @Test
    @DisplayName("a RocketMQ instance takes name-server")
    void rocketMq() {
        runner.withPropertyValues("switchboard.instances.rmq.type=rocketmq", "switchboard.instances.rmq.name-server=127.0.0.1:9876")
                .run(context -> assertThat(configOf(context)).containsEntry("rocketmq.namesrv-addr", "127.0.0.1:9876"));
    }

    @Test
    @DisplayName("an instance's properties get the type in front unless they name the type or core already")
    void instancePropertiesPrefixed() {
        runner.withPropertyValues("switchboard.instances.main.type=kafka",
                "switchboard.instances.main.bootstrap-servers=localhost:9092",
                "switchboard.instances.main.properties.linger.ms=5",
                "switchboard.instances.main.properties.[kafka.compression.type]=zstd",
                "switchboard.instances.main.properties.[switchboard.partitions]=2").run(context ->
                        assertThat(configOf(context)).containsEntry("kafka.linger.ms", "5")
                                .containsEntry("kafka.compression.type", "zstd")
                                .containsEntry("switchboard.partitions", "2"));
    }

    @Test
    @DisplayName("top-level settings, resilience and switchboard.properties reach every instance")
    void commonProperties() {
        runner.withPropertyValues("switchboard.source=shop", "switchboard.event-type=com.shop.event",
                "switchboard.auto-provision=false", "switchboard.partitions=8", "switchboard.metrics.slo=1ms,25ms",
                "switchboard.metrics.histogram=true", "switchboard.resilience.circuit-breaker.enabled=true",
                "switchboard.resilience.circuit-breaker.wait-duration-in-open-state=2s",
                "switchboard.resilience.retry.max-attempts=3", "switchboard.resilience.timeout=500ms",
                "switchboard.resilience.rate-limit.permits-per-second=100", "switchboard.resilience.bulkhead.max-concurrent=50",
                "switchboard.destinations.payments.resilience.timeout=2s",
                "switchboard.properties.[memory.capacity]=500").run(context ->
                        assertThat(configOf(context)).containsEntry("switchboard.source", "shop")
                                .containsEntry("switchboard.type", "com.shop.event")
                                .containsEntry("switchboard.auto-provision", "false")
                                .containsEntry("switchboard.partitions", "8")
                                .containsEntry("switchboard.metrics.slo", "1ms,25ms")
                                .containsEntry("switchboard.metrics.histogram", "true")
                                .containsEntry("switchboard.resilience.circuit-breaker.enabled", "true")
                                .containsEntry("switchboard.resilience.circuit-breaker.wait-duration-in-open-state", "2000ms")
                                .containsEntry("switchboard.resilience.retry.max-attempts", "3")
                                .containsEntry("switchboard.resilience.timeout", "500ms")
                                .containsEntry("switchboard.resilience.rate-limit", "100")
                                .containsEntry("switchboard.resilience.bulkhead.max-concurrent", "50")
                                .containsEntry("switchboard.destination.payments.resilience.timeout", "2000ms")
                                .containsEntry("memory.capacity", "500"));
    }

    @Test
    @DisplayName("Boot's management.metrics.distribution for switchboard meters (or all) chooses Micrometer timers; "
            + "switchboard.metrics.timers wins; the core default (micrometer) otherwise")
    void bootDistributionChoosesMicrometerTimers() {
        runner.withPropertyValues("management.metrics.distribution.percentiles-histogram.switchboard.publish=true")
                .run(context -> assertThat(configOf(context)).containsEntry("switchboard.metrics.timers", "micrometer"));
        runner.withPropertyValues("management.metrics.distribution.percentiles.all=0.5,0.99")
                .run(context -> assertThat(configOf(context)).containsEntry("switchboard.metrics.timers", "micrometer"));
        runner.withPropertyValues("management.metrics.distribution.percentiles-histogram.switchboard=false",
                        "management.metrics.distribution.percentiles-histogram.http.server.requests=true")
                .run(context -> assertThat(configOf(context)).doesNotContainKey("switchboard.metrics.timers"));
        runner.withPropertyValues("management.metrics.distribution.slo.switchboard.handle=10ms",
                        "switchboard.metrics.timers=lean")
                .run(context -> assertThat(configOf(context)).containsEntry("switchboard.metrics.timers", "lean"));
    }

    @Test
    @DisplayName("an instance's own resilience settings win over the common ones")
    void instanceResilienceWins() {
        runner.withPropertyValues("switchboard.resilience.timeout=1s", "switchboard.instances.m.type=memory",
                "switchboard.instances.m.resilience.timeout=3s")
                .run(context -> assertThat(configOf(context)).containsEntry("switchboard.resilience.timeout", "3000ms"));
    }

    @Test
    @DisplayName("destination settings bind: delivery, group, concurrency, retry, dead letter")
    void destinationSettings() {
        runner.withPropertyValues("switchboard.destinations.orders.delivery=exactly-once",
                "switchboard.destinations.orders.group=billing", "switchboard.destinations.orders.concurrency=4",
                "switchboard.destinations.orders.max-in-flight=64", "switchboard.destinations.orders.retry.max-attempts=5",
                "switchboard.destinations.orders.retry.initial-backoff=10ms", "switchboard.destinations.orders.dead-letter=orders.failed")
                .run(context -> {
                    DestinationProperties orders = context.getBean(SwitchboardProperties.class).destination("orders");
                    assertThat(orders.getDelivery()).isEqualTo(io.switchboard.Delivery.EXACTLY_ONCE);
                    assertThat(orders.getGroup()).isEqualTo("billing");
                    assertThat(orders.getConcurrency()).isEqualTo(4);
                    assertThat(orders.getMaxInFlight()).isEqualTo(64);
                    assertThat(orders.getRetry().toPolicy().maxAttempts()).isEqualTo(5);
                    assertThat(orders.getRetry().toPolicy().initialBackoff()).hasMillis(10);
                    assertThat(orders.getDeadLetter()).isEqualTo("orders.failed");
                });
    }

    @Test
    @DisplayName("retry.not-retryable and retry.retryable bind to the handler's retry policy")
    void retryExceptionTypes() {
        runner.withPropertyValues("switchboard.destinations.orders.retry.not-retryable=java.lang.IllegalArgumentException,"
                        + " java.lang.ClassCastException",
                "switchboard.destinations.audit.retry.retryable[0]=java.util.concurrent.TimeoutException")
                .run(context -> {
                    SwitchboardProperties p = context.getBean(SwitchboardProperties.class);
                    io.switchboard.RetryPolicy orders = p.destination("orders").getRetry().toPolicy();
                    assertThat(orders.retries(new NumberFormatException())).isFalse();
                    assertThat(orders.retries(new RuntimeException(new ClassCastException()))).isFalse();
                    assertThat(orders.retries(new IllegalStateException())).isTrue();
                    assertThat(orders.maxAttempts()).isEqualTo(3);
                    io.switchboard.RetryPolicy audit = p.destination("audit").getRetry().toPolicy();
                    assertThat(audit.retries(new java.util.concurrent.TimeoutException())).isTrue();
                    assertThat(audit.retries(new IllegalStateException())).isFalse();
                });
    }

    @Test
    @DisplayName("an unknown or non-exception class in retry.not-retryable fails startup, naming the value and the fix")
    void unknownExceptionType() {
        runner.withPropertyValues("switchboard.destinations.orders.retry.not-retryable=com.example.NoSuchException")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("'com.example.NoSuchException'").hasMessageContaining("fully-qualified name"));
        runner.withPropertyValues("switchboard.destinations.orders.retry.retryable=java.lang.String")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("'java.lang.String'").hasMessageContaining("not an exception class"));
        runner.withPropertyValues("switchboard.resilience.retry.not-retryable=java.lang.IllegalArgumentException")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("switchboard.resilience.retry.not-retryable")
                        .hasMessageContaining("switchboard.destinations.<name>.retry"));
    }
}
