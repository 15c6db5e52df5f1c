package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.spring.actuate.SwitchboardEndpoint;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

@DisplayName("The switchboard actuator endpoint on two in-memory instances")
class EndpointTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class,
                    SwitchboardEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=switchboard",
                    "switchboard.instances.a.type=memory", "switchboard.instances.a.properties.broker=endpoint-a",
                    "switchboard.instances.a.properties.[memory.api-token]=t0ps3cret",
                    "switchboard.instances.b.type=memory", "switchboard.instances.b.properties.broker=endpoint-b",
                    "switchboard.routes.ep-orders.instance=a");

    static final BlockingQueue<String> seen = new LinkedBlockingQueue<>();

    static class Listener {
        @SwitchboardListener(destination = "ep-orders", group = "g")
        void handle(Message<String> message, DeliveryContext context) {
            seen.add(message.payload() + "@" + context.instance());
        }
    }

    @Test
    @DisplayName("not there unless the application exposes it")
    void notExposedByDefault() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class,
                        SwitchboardEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(SwitchboardEndpoint.class));
    }

    @Test
    @DisplayName("read shows instances (secrets masked), routes and the comparison")
    void read() {
        runner.run(context -> {
            Map<String, Object> view = context.getBean(SwitchboardEndpoint.class).switchboard();
            assertThat(view).containsKeys("instances", "defaultRoute", "routes", "comparison");
            assertThat(view.get("instances").toString()).contains("endpoint-a").doesNotContain("t0ps3cret");
            assertThat(view.get("routes").toString()).contains("ep-orders").contains("single");
            assertThat(view.get("comparison").toString()).contains("instances=").contains("verdict=");
        });
    }

    @Test
    @DisplayName("a write flips the route and the next messages follow it")
    void writeFlipsTraffic() throws InterruptedException {
        seen.clear();
        runner.withBean(Listener.class).run(context -> {
            SwitchboardEndpoint endpoint = context.getBean(SwitchboardEndpoint.class);
            Publisher<String> orders = context.getBean(Publishers.class).get("ep-orders", String.class);
            orders.publish("first").toCompletableFuture().join();
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("first@a");

            Map<String, Object> after = endpoint.changeRoute("ep-orders", "split", null, "a=0,b=100",
                    null, null, null, null, null, null, null);
            assertThat(after.get("route").toString()).contains("b=100");
            for (int i = 0; i < 5; i++) {
                orders.publish(Message.of("k" + i, "next" + i)).toCompletableFuture().join();
            }
            for (int i = 0; i < 5; i++) {
                assertThat(seen.poll(10, TimeUnit.SECONDS)).endsWith("@b");
            }
        });
    }

    @Test
    @DisplayName("a bad write is a 400-style error naming the value, and changes nothing")
    void badWrite() {
        runner.run(context -> {
            SwitchboardEndpoint endpoint = context.getBean(SwitchboardEndpoint.class);
            assertThatThrownBy(() -> endpoint.changeRoute("ep-orders", "split", null, "a=0,c=1", null, null,
                    null, null, null, null, null)).isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("c");
            assertThatThrownBy(() -> endpoint.changeRoute("ep-orders", "sideways", null, null, null, null, null, null, null,
                    null, null)).isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("sideways");
            assertThatThrownBy(() -> endpoint.changeRoute("ep-orders", "single", "b", null, null, null, null, null, null, null,
                    "everywhere")).isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("'everywhere'");
            assertThat(endpoint.destination("ep-orders").get("route").toString()).contains("single");
        });
    }

    @Test
    @DisplayName("the sanitizing function masks Switchboard secrets in env and configprops")
    void sanitizes() {
        runner.run(context -> {
            SanitizingFunction function = context.getBean(SanitizingFunction.class);
            MapPropertySource source = new MapPropertySource("test", Map.of());
            assertThat(function.apply(new SanitizableData(source, "switchboard.instances.k.properties.sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"x\";")).getValue())
                    .isEqualTo(SanitizableData.SANITIZED_VALUE);
            assertThat(function.apply(new SanitizableData(source, "switchboard.instances.r.uri", "amqp://u:pw@h:5672/"))
                    .getValue()).isEqualTo("amqp://u:******@h:5672/");
            assertThat(function.apply(new SanitizableData(source, "SWITCHBOARD_INSTANCES_R_PASSWORD", "pw")).getValue())
                    .isEqualTo(SanitizableData.SANITIZED_VALUE);
            assertThat(function.apply(new SanitizableData(source, "switchboard.instances.k.type", "kafka")).getValue())
                    .isEqualTo("kafka");
        });
    }
}
