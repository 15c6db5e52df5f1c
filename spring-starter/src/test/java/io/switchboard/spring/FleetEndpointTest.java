package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Switchboard;
import io.switchboard.spring.actuate.SwitchboardEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Two replicas of one Spring application (two contexts in one JVM, the control channel on the
 * in-memory broker, switchboard.control.* in their properties): an actuator write on one changes
 * both, a local-scope write changes one, and the read shows both replicas in step.
 */
@DisplayName("The switchboard actuator endpoint of a fleet of two replicas")
class FleetEndpointTest {

    private static ApplicationContextRunner replica(String run, String id) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class,
                        SwitchboardEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=switchboard",
                        "spring.application.name=order service " + run,
                        "switchboard.instances.a.type=memory", "switchboard.instances.a.properties.broker=fa-" + run,
                        "switchboard.instances.b.type=memory", "switchboard.instances.b.properties.broker=fb-" + run,
                        "switchboard.routes.orders.weights.a=80", "switchboard.routes.orders.weights.b=20",
                        "switchboard.control.instance=a", "switchboard.control.replica=" + id);
    }

    @Test
    @DisplayName("a write on one replica changes both; scope=local changes one; the read shows both replicas in step")
    void fleetWrite() {
        String run = UUID.randomUUID().toString().substring(0, 6);
        replica(run, "one").run(one -> replica(run, "two").run(two -> {
            SwitchboardEndpoint e1 = one.getBean(SwitchboardEndpoint.class);
            Switchboard sb2 = two.getBean(Switchboard.class);
            assertThat(sb2.routing().fleet().fleetName()).isEqualTo("order-service-" + run);

            e1.changeRoute("orders", "single", "b", null, null, null, null, null, null, null, null);
            await().atMost(Duration.ofSeconds(20)).until(() -> sb2.routing().route("orders").toString().equals("single(b)"));

            e1.changeRoute("orders", "single", "a", null, null, null, null, null, null, null, "local");
            assertThat(one.getBean(Switchboard.class).routing().route("orders").toString()).isEqualTo("single(a)");
            assertThat(sb2.routing().route("orders").toString()).isEqualTo("single(b)");

            await().atMost(Duration.ofSeconds(20)).until(() -> replicas(e1).size() == 2);
            Map<String, Object> fleet = fleet(e1);
            assertThat(fleet).containsEntry("status", "UP").containsEntry("replica", "one").containsEntry("routeVersion", 1L);
            assertThat(replicas(e1)).allSatisfy(r -> assertThat(r).containsEntry("inStep", true).containsEntry("routeVersion", 1L));
        }));
    }

    @Test
    @DisplayName("switchboard.routes changed through Spring Cloud's refresh event go to every replica")
    void refreshedRoutes() {
        String run = UUID.randomUUID().toString().substring(0, 6);
        replica(run, "one").withConfiguration(AutoConfigurations.of(SwitchboardRefreshAutoConfiguration.class)).run(one ->
                replica(run, "two").run(two -> {
                    Switchboard sb2 = two.getBean(Switchboard.class);
                    org.springframework.core.env.ConfigurableEnvironment env = one.getEnvironment();
                    env.getPropertySources().addFirst(new org.springframework.core.env.MapPropertySource("refreshed",
                            Map.of("switchboard.routes.orders.weights.a", 10, "switchboard.routes.orders.weights.b", 90)));
                    one.publishEvent(new org.springframework.cloud.context.environment.EnvironmentChangeEvent(one,
                            java.util.Set.of("switchboard.routes.orders.weights.a", "switchboard.routes.orders.weights.b")));
                    await().atMost(Duration.ofSeconds(20)).until(() -> sb2.routing().route("orders").weights().equals(Map.of("a", 10, "b", 90)));
                    assertThat(sb2.routing().fleet().routeVersion()).isEqualTo(1);
                }));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> fleet(SwitchboardEndpoint e) {
        return (Map<String, Object>) e.switchboard().get("fleet");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> replicas(SwitchboardEndpoint e) {
        return (List<Map<String, Object>>) fleet(e).get("replicas");
    }
}
