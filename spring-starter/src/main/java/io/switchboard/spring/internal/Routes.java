package io.switchboard.spring.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import io.switchboard.routing.RoutingMode;
import io.switchboard.spring.InvalidSwitchboardPropertyException;
import io.switchboard.spring.RouteProperties;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * Turns {@link RouteProperties} into core's {@link Route} and {@link PromotionGate}, checking each
 * value against the configured instances first, so that an error names the property (for example
 * {@code switchboard.routes.orders.weights.c}) rather than only the route.
 */
public final class Routes {

    private Routes() {}

    /**
     * The route the properties describe.
     *
     * @param property where the route is configured, e.g. {@code switchboard.routes.orders}
     * @param route the bound values
     * @param instances the instance names there are
     * @throws InvalidSwitchboardPropertyException naming the property, the value and the fix
     */
    public static Route toRoute(String property, RouteProperties route, Collection<String> instances) {
        RoutingMode mode = route.getMode() != null ? route.getMode() : inferMode(property, route);
        if (Boolean.TRUE.equals(route.getPerMessage()) && mode != RoutingMode.SPLIT) {
            throw new InvalidSwitchboardPropertyException(property + ".per-message", "true", "per-message applies to a "
                    + "split, but this is a " + mode.name().toLowerCase(Locale.ROOT) + " route",
                    "Remove " + property + ".per-message, or make the route a split: " + property + ".weights.<instance>");
        }
        try {
            return switch (mode) {
                case SINGLE -> Route.single(instance(property, "instance", route.getInstance(), instances, mode));
                case SPLIT -> {
                    Route split = Route.split(weights(property, route.getWeights(), instances));
                    yield Boolean.TRUE.equals(route.getPerMessage()) ? split.perMessage() : split;
                }
                case MIRROR -> Route.mirror(instance(property, "primary", route.getPrimary(), instances, mode),
                        instance(property, "shadow", route.getShadow(), instances, mode))
                        .observeOnly(route.getObserveOnly() == null || route.getObserveOnly());
                case FAILOVER -> Route.failover(instance(property, "primary", route.getPrimary(), instances, mode),
                        instance(property, "secondary", route.getSecondary(), instances, mode));
                case MIGRATE -> Route.migrate(instance(property, "from", route.getFrom(), instances, mode),
                        instance(property, "to", route.getTo(), instances, mode));
            };
        } catch (InvalidSwitchboardPropertyException e) {
            throw e;
        } catch (ConfigurationException e) {
            throw new InvalidSwitchboardPropertyException(property, mode.name().toLowerCase(Locale.ROOT) + " route",
                    e.getMessage(), "Correct the route's instances under " + property);
        }
    }

    /** The promotion gate of a route, or null when {@code gate.to} is not set. */
    public static PromotionGate toGate(String property, RouteProperties.Gate gate, Collection<String> instances) {
        if (gate.getTo() == null) {
            return null;
        }
        String from = instance(property, "gate.from", gate.getFrom(), instances, null);
        String to = instance(property, "gate.to", gate.getTo(), instances, null);
        try {
            PromotionGate.Builder builder = PromotionGate.from(from).to(to);
            if (!gate.getSteps().isEmpty()) {
                builder.steps(gate.getSteps().stream().mapToInt(Integer::intValue).toArray());
            }
            if (gate.getHold() != null) {
                builder.hold(gate.getHold());
            }
            if (gate.getMaxP99Ratio() != null) {
                builder.maxP99Ratio(gate.getMaxP99Ratio());
            }
            if (gate.getP99Slack() != null) {
                builder.p99Slack(gate.getP99Slack());
            }
            if (gate.getMaxErrorRateIncrease() != null) {
                builder.maxErrorRateIncrease(gate.getMaxErrorRateIncrease());
            }
            if (gate.getMinSamples() != null) {
                builder.minSamples(gate.getMinSamples());
            }
            if (gate.getBreachFor() != null) {
                builder.breachFor(gate.getBreachFor());
            }
            if (gate.getMaxHold() != null) {
                builder.maxHold(gate.getMaxHold());
            }
            return builder.build();
        } catch (ConfigurationException e) {
            throw new InvalidSwitchboardPropertyException(property + ".gate", from + " to " + to, e.getMessage(),
                    "Correct the gate's settings under " + property + ".gate");
        }
    }

    private static RoutingMode inferMode(String property, RouteProperties route) {
        if (!route.getWeights().isEmpty()) {
            return RoutingMode.SPLIT;
        }
        if (route.getInstance() != null) {
            return RoutingMode.SINGLE;
        }
        if (route.getShadow() != null) {
            return RoutingMode.MIRROR;
        }
        if (route.getSecondary() != null) {
            return RoutingMode.FAILOVER;
        }
        if (route.getFrom() != null || route.getTo() != null) {
            return RoutingMode.MIGRATE;
        }
        throw new InvalidSwitchboardPropertyException(property + ".mode", null, "the route names no mode and no instances",
                "Set " + property + ".mode to single, split, mirror, failover or migrate, with its instances "
                        + "(instance; weights; primary and shadow; primary and secondary; from and to)");
    }

    private static String instance(String property, String field, String value, Collection<String> instances, RoutingMode mode) {
        String key = property + "." + field;
        if (value == null || value.isBlank()) {
            throw new InvalidSwitchboardPropertyException(key, null,
                    (mode == null ? "a promotion gate" : "a " + mode.name().toLowerCase(Locale.ROOT) + " route")
                            + " needs it", "Set " + key + " to one of the instances " + instances);
        }
        if (!instances.contains(value)) {
            throw new InvalidSwitchboardPropertyException(key, value, "no instance has this name",
                    "Name one of the instances under switchboard.instances: " + instances);
        }
        return value;
    }

    private static Map<String, Integer> weights(String property, Map<String, Integer> weights, Collection<String> instances) {
        String key = property + ".weights";
        if (weights.isEmpty()) {
            throw new InvalidSwitchboardPropertyException(key, null, "a split route needs a weight per instance",
                    "Set " + key + ".<instance>, for example " + key + ".a=90 and " + key + ".b=10");
        }
        long total = 0;
        for (Map.Entry<String, Integer> e : weights.entrySet()) {
            if (!instances.contains(e.getKey())) {
                throw new InvalidSwitchboardPropertyException(key + "." + e.getKey(), String.valueOf(e.getValue()),
                        "no instance is named '" + e.getKey() + "'", "Name one of the instances under switchboard.instances: "
                                + instances);
            }
            if (e.getValue() == null || e.getValue() < 0) {
                throw new InvalidSwitchboardPropertyException(key + "." + e.getKey(), String.valueOf(e.getValue()),
                        "a weight cannot be negative", "Use 0 (no traffic) or a positive weight");
            }
            total += e.getValue();
        }
        if (total <= 0) {
            throw new InvalidSwitchboardPropertyException(key, weights.toString(), "the weights sum to " + total
                    + ", so no instance would get any message", "Give at least one instance a positive weight, for example "
                            + "a: 90 and b: 10");
        }
        return weights;
    }
}
