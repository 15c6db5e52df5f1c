package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

@DisplayName("A wrong property fails startup naming the property, the value and the fix")
class FailureAnalysisTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class));

    private static void failsWith(String[] properties, Consumer<FailureAnalysis> check) {
        StartupFailures.failsWith(runner, properties, check);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    @DisplayName("a real application start reports the analysis (the analyzer is registered in spring.factories)")
    void reportedByApplicationStart(CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--switchboard.instances.main.type=kafak", "--spring.main.banner-mode=off"))
                .hasRootCauseInstanceOf(InvalidSwitchboardPropertyException.class);
        assertThat(output).contains("APPLICATION FAILED TO START").contains("Property: switchboard.instances.main.type")
                .contains("Value:    kafak");
    }

    @Test
    @DisplayName("an unknown broker type lists the types on the classpath")
    void unknownType() {
        failsWith(new String[] {"switchboard.instances.main.type=kafak"}, analysis -> {
            assertThat(analysis.getDescription()).contains("switchboard.instances.main.type").contains("kafak")
                    .contains("no broker adapter has this id");
            assertThat(analysis.getAction()).contains("kafka", "rabbitmq", "rocketmq", "memory");
        });
    }

    @Test
    @DisplayName("a missing type says which types there are")
    void missingType() {
        failsWith(new String[] {"switchboard.instances.main.bootstrap-servers=localhost:9092"}, analysis -> {
            assertThat(analysis.getDescription()).contains("switchboard.instances.main.type").contains("(not set)");
            assertThat(analysis.getAction()).contains("Set switchboard.instances.main.type");
        });
    }

    @Test
    @DisplayName("a Kafka instance without bootstrap-servers says how to set it")
    void missingBootstrap() {
        failsWith(new String[] {"switchboard.instances.main.type=kafka"}, analysis -> {
            assertThat(analysis.getDescription()).contains("switchboard.instances.main.bootstrap-servers");
            assertThat(analysis.getAction()).contains("localhost:9092");
        });
    }

    @Test
    @DisplayName("a RocketMQ instance without name-server says how to set it")
    void missingNameServer() {
        failsWith(new String[] {"switchboard.instances.r.type=rocketmq"}, analysis ->
                assertThat(analysis.getDescription()).contains("switchboard.instances.r.name-server"));
    }

    @Test
    @DisplayName("a malformed RabbitMQ uri is shown with its password masked")
    void badUriMasked() {
        failsWith(new String[] {"switchboard.instances.r.type=rabbitmq", "switchboard.instances.r.uri=http://u:s3cr3t@host/"},
                analysis -> {
                    assertThat(analysis.getDescription()).contains("switchboard.instances.r.uri").doesNotContain("s3cr3t");
                    assertThat(analysis.getAction()).contains("amqp://");
                });
    }

    @Test
    @DisplayName("a setting of another broker type names the type it belongs to")
    void foreignSetting() {
        failsWith(new String[] {"switchboard.instances.main.type=kafka", "switchboard.instances.main.bootstrap-servers=h:9092",
                "switchboard.instances.main.name-server=h:9876"}, analysis -> {
                    assertThat(analysis.getDescription()).contains("switchboard.instances.main.name-server")
                            .contains("rocketmq setting");
                    assertThat(analysis.getAction()).contains("Remove it");
                });
    }

    @Test
    @DisplayName("a default-instance naming no instance lists the instances")
    void unknownDefaultInstance() {
        failsWith(new String[] {"switchboard.instances.a.type=memory", "switchboard.default-instance=b"}, analysis -> {
            assertThat(analysis.getDescription()).contains("switchboard.default-instance").contains("'b'".replace("'", ""));
            assertThat(analysis.getAction()).contains("[a]");
        });
    }

    @Test
    @DisplayName("an adapter's own refusal of a property is explained too")
    void adapterRefusal() {
        failsWith(new String[] {"switchboard.instances.main.type=kafka", "switchboard.instances.main.bootstrap-servers=h:9092",
                "switchboard.instances.main.properties.max.request.size=10"}, analysis -> {
                    assertThat(analysis.getDescription()).contains("kafka.max.request.size").contains("10");
                    assertThat(analysis.getAction()).contains("switchboard.*");
                });
    }

    @Test
    @DisplayName("a wrong enum value fails binding (Spring Boot's own analysis names property and values)")
    void badDeliveryFailsBinding() {
        runner.withPropertyValues("switchboard.destinations.orders.delivery=twice")
                .run(context -> assertThat(context).hasFailed());
    }
}
