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
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("## The whole `application.yml`");
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
}
