package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.routing.RoutingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/** The README's complete application.yml binds and starts (adapters connect lazily, so no broker is needed). */
@DisplayName("The README's application.yml")
class ReadmeYamlTest {

    private static String readmeYaml() throws Exception {
        return readmeYaml("## The whole `application.yml`");
    }

    /** The first YAML block after the heading. */
    private static String readmeYaml(String heading) throws Exception {
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf(heading);
        assertThat(section).as(heading + " in README.md").isNotNegative();
        int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
        return readme.substring(start, readme.indexOf("```", start));
    }

    @Test
    @DisplayName("binds every section and starts the Switchboard it describes")
    void startsAsDocumented() throws Exception {
        PropertySource<?> yaml = new YamlPropertySourceLoader()
                .load("README", new ByteArrayResource(readmeYaml().getBytes(StandardCharsets.UTF_8))).get(0);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(yaml))
                .withPropertyValues("KAFKA_JAAS=org.apache.kafka.common.security.plain.PlainLoginModule required;",
                        "RABBIT_PASSWORD=secret")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Switchboard switchboard = context.getBean(Switchboard.class);
                    assertThat(switchboard.instances()).containsExactly("a", "b", "c");
                    // the gate on orders took over its weights at its first step
                    assertThat(switchboard.routing().promotion("orders").orElseThrow().targetPercent()).isEqualTo(1);
                    assertThat(switchboard.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 99, "b", 1)));
                    assertThat(switchboard.routing().route("audit").mode()).isEqualTo(RoutingMode.MIRROR);
                    assertThat(switchboard.routing().route("invoices").mode()).isEqualTo(RoutingMode.MIGRATE);
                    assertThat(switchboard.instance("b").config().get("rabbitmq.uri"))
                            .isEqualTo("amqp://shop:secret@rabbit-b:5672/shop");
                    assertThat(switchboard.instance("a").config().get("kafka.linger.ms")).isEqualTo("5");
                    assertThat(switchboard.instance("c").config().get("rocketmq.consume-mode")).isEqualTo("concurrently");
                });
    }
    @Test
    @DisplayName("the Outbox section's application.yml binds every outbox key and starts the outbox (on H2 here)")
    void outboxSection() throws Exception {
        PropertySource<?> yaml = new YamlPropertySourceLoader().load("README outbox",
                new ByteArrayResource(readmeYaml("## Outbox").getBytes(StandardCharsets.UTF_8))).get(0);
        String h2 = "jdbc:h2:mem:readme-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                        org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
                        SwitchboardAutoConfiguration.class, SwitchboardOutboxAutoConfiguration.class))
                .withInitializer(context -> {
                    context.getEnvironment().getPropertySources().addFirst(yaml);
                    // the README's PostgreSQL, swapped for an in-memory database; everything else as written
                    context.getEnvironment().getPropertySources().addFirst(new org.springframework.core.env.MapPropertySource(
                            "h2", Map.of("spring.datasource.url", h2, "spring.datasource.username", "sa",
                                    "spring.datasource.password", "")));
                })
                .withPropertyValues("DB_PASSWORD=unused")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    OutboxProperties p = context.getBean(OutboxProperties.class);
                    assertThat(p.isEnabled()).isTrue();
                    assertThat(p.getInitializeSchema()).isEqualTo(org.springframework.boot.sql.init.DatabaseInitializationMode.ALWAYS);
                    assertThat(p.getPoll().getMax()).isEqualTo(java.time.Duration.ofMillis(500));
                    assertThat(p.getBackoff().getMax()).isEqualTo(java.time.Duration.ofSeconds(10));
                    assertThat(p.getRetention()).isZero();
                    assertThat(context.getBean(io.switchboard.outbox.Outbox.class).table()).isEqualTo("switchboard_outbox");
                    assertThat(context).hasSingleBean(SwitchboardOutbox.class);
                });
    }
}
