package io.switchboard.spring.internal;

import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.spring.RouteProperties;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Applies changed {@code switchboard.routes.*} and {@code switchboard.default-route.*} properties
 * through {@code Switchboard.routing()}: only the routes whose value differs from the one in force
 * are changed, so a refresh that touches nothing else changes nothing.
 */
public final class RouteRefresher {

    private static final Logger log = LoggerFactory.getLogger(RouteRefresher.class);

    private final Switchboard switchboard;
    private final Environment environment;

    /** A refresher of {@code switchboard}'s routes from {@code environment}. */
    public RouteRefresher(Switchboard switchboard, Environment environment) {
        this.switchboard = switchboard;
        this.environment = environment;
    }

    /** Called with the property keys that changed. */
    public void changed(Collection<String> keys) {
        boolean routes = keys.stream().anyMatch(k -> k.startsWith("switchboard.routes.") || k.startsWith("switchboard.default-route."));
        if (!routes || switchboard.instances().size() < 2) {
            return;
        }
        SwitchboardProperties now = Binder.get(environment).bind("switchboard", SwitchboardProperties.class)
                .orElseGet(SwitchboardProperties::new);
        for (Map.Entry<String, RouteProperties> e : now.getRoutes().entrySet()) {
            String destination = e.getKey();
            Route route = Routes.toRoute("switchboard.routes." + destination, e.getValue(), switchboard.instances());
            if (!Objects.equals(route, switchboard.routing().routes().get(destination))) {
                log.info("switchboard.routes.{} changed in the environment: applying {}", destination, route);
                switchboard.routing().update(destination, route);
            }
        }
        if (!now.getDefaultRoute().isEmpty()) {
            Route route = Routes.toRoute("switchboard.default-route", now.getDefaultRoute(), switchboard.instances());
            if (!route.equals(switchboard.routing().defaultRoute())) {
                log.info("switchboard.default-route changed in the environment: applying {}", route);
                switchboard.routing().updateDefault(route);
            }
        }
    }
}
