package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Switchboard;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.Route;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("Routes between instances from switchboard.routes.* and switchboard.default-route.*")
class RoutingPropertiesTest {

    /** Two in-memory instances on separate in-memory brokers, as two clusters would be. */
    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.instances.a.type=memory", "switchboard.instances.a.properties.broker=routing-a",
                    "switchboard.instances.b.type=memory", "switchboard.instances.b.properties.broker=routing-b");

    private static Switchboard switchboard(org.springframework.context.ApplicationContext context) {
        return context.getBean(Switchboard.class);
    }

    @Test
    @DisplayName("two instances, the first is the default route; each has its own configuration")
    void twoInstances() {
        runner.run(context -> {
            assertThat(switchboard(context).instances()).containsExactly("a", "b");
            assertThat(switchboard(context).routing().defaultRoute()).isEqualTo(Route.single("a"));
            assertThat(switchboard(context).instance("b").config().get("memory.broker")).isEqualTo("routing-b");
        });
    }

    @Test
    @DisplayName("default-instance picks the default route's instance")
    void defaultInstance() {
        runner.withPropertyValues("switchboard.default-instance=b")
                .run(context -> assertThat(switchboard(context).routing().defaultRoute()).isEqualTo(Route.single("b")));
    }

    @Test
    @DisplayName("each mode binds, the mode inferred when not given")
    void everyMode() {
        runner.withPropertyValues("switchboard.routes.orders.mode=split", "switchboard.routes.orders.weights.a=90",
                "switchboard.routes.orders.weights.b=10", "switchboard.routes.audit.primary=a",
                "switchboard.routes.audit.shadow=b", "switchboard.routes.audit.observe-only=false",
                "switchboard.routes.pay.mode=failover", "switchboard.routes.pay.primary=a", "switchboard.routes.pay.secondary=b",
                "switchboard.routes.moving.from=a", "switchboard.routes.moving.to=b", "switchboard.routes.pinned.instance=b",
                "switchboard.routes.tenants.weights.a=50", "switchboard.routes.tenants.weights.b=50",
                "switchboard.routes.tenants.per-message=true",
                "switchboard.default-route.mode=split", "switchboard.default-route.weights.a=1",
                "switchboard.default-route.weights.b=1").run(context -> {
                    var routing = switchboard(context).routing();
                    assertThat(routing.route("orders")).isEqualTo(Route.split(Map.of("a", 90, "b", 10)));
                    assertThat(routing.route("audit")).isEqualTo(Route.mirror("a", "b").observeOnly(false));
                    assertThat(routing.route("pay")).isEqualTo(Route.failover("a", "b"));
                    assertThat(routing.route("moving")).isEqualTo(Route.migrate("a", "b"));
                    assertThat(routing.route("pinned")).isEqualTo(Route.single("b"));
                    assertThat(routing.route("tenants")).isEqualTo(Route.split(Map.of("a", 50, "b", 50)).perMessage());
                    assertThat(routing.defaultRoute()).isEqualTo(Route.split(Map.of("a", 1, "b", 1)));
                });
    }

    @Test
    @DisplayName("a promotion gate starts with the application")
    void gateStarts() {
        runner.withPropertyValues("switchboard.routes.orders.instance=a", "switchboard.routes.orders.gate.from=a",
                "switchboard.routes.orders.gate.to=b", "switchboard.routes.orders.gate.steps=10,100",
                "switchboard.routes.orders.gate.hold=1h", "switchboard.routes.orders.gate.breach-for=20s",
                "switchboard.routes.orders.gate.max-hold=2h").run(context -> {
                    Promotion promotion = switchboard(context).routing().promotion("orders").orElseThrow();
                    assertThat(promotion.state()).isEqualTo(Promotion.State.RUNNING);
                    assertThat(promotion.gate().target()).isEqualTo("b");
                    assertThat(promotion.gate().breachFor()).isEqualTo(java.time.Duration.ofSeconds(20));
                    assertThat(promotion.gate().maxHold()).isEqualTo(java.time.Duration.ofHours(2));
                });
    }

    private static void failsWith(String[] properties, Consumer<FailureAnalysis> check) {
        StartupFailures.failsWith(runner, properties, check);
    }

    @Test
    @DisplayName("weights that do not sum to a positive total fail startup")
    void weightsNotPositive() {
        failsWith(new String[] {"switchboard.routes.orders.weights.a=0", "switchboard.routes.orders.weights.b=0"}, analysis -> {
            assertThat(analysis.getDescription()).contains("switchboard.routes.orders.weights").contains("{a=0, b=0}")
                    .contains("sum to 0");
            assertThat(analysis.getAction()).contains("positive weight");
        });
    }

    @Test
    @DisplayName("a negative weight fails startup naming the instance's weight")
    void negativeWeight() {
        failsWith(new String[] {"switchboard.routes.orders.weights.a=-1", "switchboard.routes.orders.weights.b=5"},
                analysis -> assertThat(analysis.getDescription()).contains("switchboard.routes.orders.weights.a").contains("-1"));
    }

    @Test
    @DisplayName("a route naming an unknown instance fails startup listing the instances")
    void unknownInstance() {
        failsWith(new String[] {"switchboard.routes.orders.weights.a=50", "switchboard.routes.orders.weights.c=50"}, analysis -> {
            assertThat(analysis.getDescription()).contains("switchboard.routes.orders.weights.c");
            assertThat(analysis.getAction()).contains("[a, b]");
        });
        failsWith(new String[] {"switchboard.routes.orders.mode=mirror", "switchboard.routes.orders.primary=a",
                "switchboard.routes.orders.shadow=z"}, analysis ->
                        assertThat(analysis.getDescription()).contains("switchboard.routes.orders.shadow").contains("z"));
    }

    @Test
    @DisplayName("a mode missing its second instance, or given one instance twice, fails startup")
    void secondInstanceMissing() {
        failsWith(new String[] {"switchboard.routes.orders.mode=failover", "switchboard.routes.orders.primary=a"}, analysis ->
                assertThat(analysis.getDescription()).contains("switchboard.routes.orders.secondary").contains("(not set)"));
        failsWith(new String[] {"switchboard.routes.orders.from=a", "switchboard.routes.orders.to=a"}, analysis ->
                assertThat(analysis.getDescription()).contains("switchboard.routes.orders").contains("two different instances"));
    }

    @Test
    @DisplayName("per-message on a route that is not a split fails startup, naming the property")
    void perMessageOnlyOnASplit() {
        failsWith(new String[] {"switchboard.routes.orders.instance=a", "switchboard.routes.orders.per-message=true"},
                analysis -> assertThat(analysis.getDescription()).contains("switchboard.routes.orders.per-message")
                        .contains("single route"));
    }

    @Test
    @DisplayName("a route with no mode and no instance says what to set")
    void emptyRoute() {
        failsWith(new String[] {"switchboard.routes.orders.observe-only=true"}, analysis ->
                assertThat(analysis.getDescription()).contains("switchboard.routes.orders.mode"));
    }

    @Test
    @DisplayName("a gate naming an unknown instance fails startup")
    void badGate() {
        failsWith(new String[] {"switchboard.routes.orders.instance=a", "switchboard.routes.orders.gate.from=a",
                "switchboard.routes.orders.gate.to=nope"}, analysis ->
                        assertThat(analysis.getDescription()).contains("switchboard.routes.orders.gate.to").contains("nope"));
    }

    @Test
    @DisplayName("default-instance and default-route together are refused")
    void defaultInstanceAndRoute() {
        failsWith(new String[] {"switchboard.default-instance=a", "switchboard.default-route.instance=b"}, analysis ->
                assertThat(analysis.getAction()).contains("Keep one"));
    }
}
