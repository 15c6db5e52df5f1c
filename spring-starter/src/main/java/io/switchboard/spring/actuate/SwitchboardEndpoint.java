package io.switchboard.spring.actuate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.BrokerInstance;
import io.switchboard.ConfigurationException;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.routing.Fleet;
import io.switchboard.routing.Route;
import io.switchboard.routing.RoutingMode;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spring.InvalidSwitchboardPropertyException;
import io.switchboard.spring.RouteProperties;
import io.switchboard.spring.internal.Routes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * Actuator endpoint {@code switchboard}: {@code GET /actuator/switchboard} shows the broker
 * instances (type, capabilities, configuration with secrets masked), the routes and the live
 * comparison of the instances; {@code GET /actuator/switchboard/{destination}} one destination's
 * route, promotion, shadow check and comparison; with the transactional outbox on, {@code outbox} in the first shows its
 * table, whether its relay runs, its backlog and the age of its oldest unsent message. {@code POST /actuator/switchboard/{destination}}
 * with a JSON body such as {@code {"mode": "split", "weights": "a=50,b=50"}} changes that
 * destination's route at run time ({@code POST /actuator/switchboard} the default route); the
 * body takes the keys of {@code switchboard.routes.<destination>.*}. Exposed like any actuator
 * endpoint: only when {@code management.endpoints.web.exposure.include} names it. A refused write
 * throws {@link RouteChangeRejectedException} naming the property, the value and the fix; over HTTP
 * {@link SwitchboardWebEndpointExtension} answers it as a 400 with those in a JSON body.
 */
@Endpoint(id = "switchboard")
public class SwitchboardEndpoint {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Switchboard switchboard;
    private final @Nullable Outbox outbox;

    /**
     * An endpoint over the application's Switchboard.
     *
     * @param switchboard the application's Switchboard
     */
    public SwitchboardEndpoint(Switchboard switchboard) {
        this(switchboard, null);
    }

    /**
     * An endpoint over the application's Switchboard and its transactional outbox.
     *
     * @param switchboard the application's Switchboard
     * @param outbox the application's outbox, or null when it has none
     */
    public SwitchboardEndpoint(Switchboard switchboard, @Nullable Outbox outbox) {
        this.switchboard = switchboard;
        this.outbox = outbox;
    }

    /** {@return the instances, routes and the comparison of every destination} */
    @ReadOperation
    public Map<String, Object> switchboard() {
        Map<String, Object> view = new LinkedHashMap<>();
        Map<String, Object> instances = new LinkedHashMap<>();
        switchboard.instances().forEach(name -> instances.put(name, instance(switchboard.instance(name))));
        view.put("instances", instances);
        if (outbox != null) {
            view.put("outbox", outbox(outbox));
        }
        if (switchboard.instances().size() == 1 && !routed()) {
            view.put("defaultRoute", route(Route.single(switchboard.instanceName())));
            view.put("routes", Map.of());
            return view;
        }
        view.put("defaultRoute", route(switchboard.routing().defaultRoute()));
        Map<String, Object> routes = new TreeMap<>();
        switchboard.routing().routes().forEach((destination, r) -> routes.put(destination, route(r)));
        view.put("routes", routes);
        view.put("fleet", fleet(switchboard.routing().fleet()));
        view.put("comparison", json(switchboard.comparison().report().toJson()));
        return view;
    }

    /** The outbox's figures as last read (every stats interval), without a query of their own. */
    private static Map<String, Object> outbox(Outbox outbox) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("table", outbox.table());
        view.put("relay", outbox.isRunning() ? "running" : "stopped");
        view.put("backlog", outbox.backlog());
        view.put("oldestUnsentAgeMs", outbox.oldestUnsentAge().toMillis());
        return view;
    }

    /** The fleet as this replica sees it: status, each replica's route version and whether it is in step. */
    private static Map<String, Object> fleet(Fleet fleet) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("status", fleet.status().name());
        view.put("reason", fleet.reason());
        if (fleet.status() != Fleet.Status.LOCAL) {
            view.put("name", fleet.fleetName());
            view.put("replica", fleet.replica());
            view.put("controlInstance", fleet.controlInstance());
            view.put("routeVersion", fleet.routeVersion());
            view.put("leader", fleet.leader());
            List<Map<String, Object>> replicas = new ArrayList<>();
            for (Fleet.Replica r : fleet.replicas()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", r.id());
                m.put("routeVersion", r.routeVersion());
                m.put("inStep", r.inStep());
                m.put("leader", r.leader());
                m.put("status", r.status().name());
                m.put("lastSeen", r.lastSeen().toString());
                replicas.add(m);
            }
            view.put("replicas", replicas);
        }
        return view;
    }

    /**
     * {@return one destination: its route, its promotion and shadow check when it has them, and its comparison}
     *
     * @param destination the destination's name
     */
    @ReadOperation
    public Map<String, Object> destination(@Selector String destination) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("destination", destination);
        if (!routed()) {
            view.put("route", route(Route.single(switchboard.instanceName())));
            return view;
        }
        Route route = switchboard.routing().route(destination);
        view.put("route", route(route));
        view.put("routeVersion", switchboard.routing().fleet().routeVersion());
        switchboard.routing().promotion(destination).ifPresent(p -> view.put("promotion", Map.of(
                "state", p.state().name(), "targetPercent", p.targetPercent(), "reason", p.reason(), "gate", p.gate().toString())));
        if (route.mode() == RoutingMode.MIRROR) {
            view.put("shadow", switchboard.routing().shadowReport(destination));
        }
        view.put("comparison", json(switchboard.comparison().report(destination).toJson()));
        return view;
    }

    /**
     * Changes a destination's route; answers the route now in force. With a control channel the
     * change is the fleet's (every replica applies it); {@code "scope": "local"} changes this replica
     * only, until the next fleet-wide change (for tests).
     *
     * @param destination the destination's name
     * @param mode single, split, mirror, failover or migrate; inferred from the other fields when null
     * @param instance for single: the instance
     * @param weights for split: {@code a=90,b=10}
     * @param primary for mirror and failover: the primary instance
     * @param shadow for mirror: the shadow instance
     * @param observeOnly for mirror: whether the shadow only observes
     * @param secondary for failover: the secondary instance
     * @param from for migrate: the instance moved away from
     * @param to for migrate: the instance moved to
     * @param scope {@code local} for this replica only; the fleet otherwise
     * @return the route now in force
     */
    @WriteOperation
    public Map<String, Object> changeRoute(@Selector String destination, @Nullable String mode, @Nullable String instance,
            @Nullable String weights, @Nullable String primary, @Nullable String shadow,
            @Nullable Boolean observeOnly, @Nullable String secondary, @Nullable String from, @Nullable String to,
            @Nullable String scope) {
        Route route = parse("switchboard.routes." + destination, mode, instance, weights, primary, shadow, observeOnly,
                secondary, from, to);
        boolean local = scope != null && scope.trim().equalsIgnoreCase("local");
        if (scope != null && !local && !scope.trim().equalsIgnoreCase("fleet")) {
            throw new RouteChangeRejectedException("scope", scope, "no such scope",
                    "Send \"scope\": \"fleet\" (the default: every replica) or \"local\" (this replica only)", null);
        }
        try {
            if (local) {
                switchboard.routing().updateLocal(destination, route);
            } else {
                switchboard.routing().update(destination, route);
            }
        } catch (io.switchboard.SwitchboardException e) {
            throw rejected("switchboard.routes." + destination, route, e);
        }
        return destination(destination);
    }

    /**
     * Changes the default route; answers the whole view.
     *
     * @param mode single, split, mirror, failover or migrate; inferred from the other fields when null
     * @param instance for single: the instance
     * @param weights for split: {@code a=90,b=10}
     * @param primary for mirror and failover: the primary instance
     * @param shadow for mirror: the shadow instance
     * @param observeOnly for mirror: whether the shadow only observes
     * @param secondary for failover: the secondary instance
     * @param from for migrate: the instance moved away from
     * @param to for migrate: the instance moved to
     * @return the whole view, as {@link #switchboard()}
     */
    @WriteOperation
    public Map<String, Object> changeDefaultRoute(@Nullable String mode, @Nullable String instance,
            @Nullable String weights, @Nullable String primary, @Nullable String shadow,
            @Nullable Boolean observeOnly, @Nullable String secondary, @Nullable String from, @Nullable String to) {
        Route route = parse("switchboard.default-route", mode, instance, weights, primary, shadow, observeOnly, secondary,
                from, to);
        try {
            switchboard.routing().updateDefault(route);
        } catch (io.switchboard.SwitchboardException e) {
            throw rejected("switchboard.default-route", route, e);
        }
        return switchboard();
    }

    /** A change the routing layer refused (the fleet's control channel, a check of its own). */
    private static RouteChangeRejectedException rejected(String property, Route route, io.switchboard.SwitchboardException e) {
        if (e instanceof InvalidSwitchboardPropertyException p) {
            return new RouteChangeRejectedException(p.property(), p.value(), p.reason(), p.action(), e);
        }
        return new RouteChangeRejectedException(property, route.toString(), e.getMessage(),
                "Correct the route (or what the message names) and send it again", e);
    }

    private Route parse(String property, String mode, String instance, String weights, String primary,
            String shadow, Boolean observeOnly, String secondary, String from, String to) {
        if (!routed()) {
            throw new RouteChangeRejectedException("switchboard.instances", String.join(",", switchboard.instances()),
                    "this Switchboard has one broker instance and no routes",
                    "Configure a second instance under switchboard.instances to route between them", null);
        }
        RouteProperties r = new RouteProperties();
        try {
            r.setMode(mode == null ? null : RoutingMode.valueOf(mode.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            throw new RouteChangeRejectedException(property + ".mode", mode, "no such routing mode",
                    "Send \"mode\" as one of single, split, mirror, failover or migrate", e);
        }
        if (weights != null) {
            try {
                for (String pair : weights.split(",")) {
                    String[] parts = pair.split("[=:]", 2);
                    r.getWeights().put(parts[0].trim(), Integer.valueOf(parts[1].trim()));
                }
            } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
                throw new RouteChangeRejectedException(property + ".weights", weights, "not a list of instance=weight pairs",
                        "Send \"weights\" such as \"a=90,b=10\" (instance names from switchboard.instances, whole numbers)", e);
            }
        }
        r.setInstance(instance);
        r.setPrimary(primary);
        r.setShadow(shadow);
        r.setObserveOnly(observeOnly);
        r.setSecondary(secondary);
        r.setFrom(from);
        r.setTo(to);
        try {
            return Routes.toRoute(property, r, switchboard.instances());
        } catch (InvalidSwitchboardPropertyException e) {
            throw new RouteChangeRejectedException(e.property(), e.value(), e.reason(), e.action(), e);
        }
    }

    private boolean routed() {
        try {
            switchboard.routing();
            return true;
        } catch (ConfigurationException e) {
            return false;
        }
    }

    private static Map<String, Object> instance(BrokerInstance instance) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("broker", instance.brokerId());
        Capabilities c = instance.capabilities();
        view.put("capabilities", Map.of("nativeExactlyOnce", c.nativeExactlyOnce(), "orderingPerKey", c.orderingPerKey(),
                "delayedDelivery", c.delayedDelivery(), "broadcast", c.broadcast(), "filtering", c.filtering(),
                "maxMessageSize", c.maxMessageSize()));
        Map<String, String> config = new TreeMap<>();
        instance.config().properties().forEach((k, v) -> config.put(k, BrokerConfig.printable(k, v)));
        view.put("config", config);
        return view;
    }

    private static Map<String, Object> route(Route route) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("mode", route.mode().name().toLowerCase(Locale.ROOT));
        view.put("weights", route.weights());
        switch (route.mode()) {
            case SINGLE -> { }
            case SPLIT -> view.put("perMessage", route.isPerMessage());
            case MIRROR -> {
                view.put("primary", route.primary());
                view.put("shadow", route.shadow());
                view.put("observeOnly", route.isObserveOnly());
            }
            case FAILOVER -> {
                view.put("primary", route.primary());
                view.put("secondary", route.secondary());
            }
            case MIGRATE -> {
                view.put("from", route.from());
                view.put("to", route.to());
            }
        }
        return view;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(String text) {
        try {
            return JSON.readValue(text, Map.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Comparison report is not valid JSON", e);
        }
    }
}
