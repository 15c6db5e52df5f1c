package io.switchboard.internal.routing;

import io.switchboard.ConfigurationException;
import io.switchboard.internal.Instance;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.routing.Route;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The checks of a route against the instances of a Switchboard, before it is used. */
final class RouteChecks {

    private RouteChecks() {}

    /**
     * The setting by which a subscription asks for per-key order: RocketMQ's orderly consumption, set on the
     * subscription or on its instance (it is RocketMQ's default too, but only a value set says the application needs it).
     */
    static final String ORDERLY = "rocketmq.consume-mode";

    /**
     * Refuses a per-message split over several instances for a subscription that asks for per-key order: such a split
     * sends a key's messages to every instance, so no subscription can keep them in order.
     *
     * @param next the route to check
     * @param request the subscription
     * @param instances the Switchboard's instances, by index
     * @throws ConfigurationException naming the setting and the fix
     */
    static void keepsOrder(RouteState next, SubscriptionRequest<?> request, List<Instance> instances) {
        if (!next.perMessage || !next.spreads()) {
            return;
        }
        String where = orderly(request.properties().get(ORDERLY)) ? "on the subscription" : null;
        for (int i = 0; where == null && i < next.reads.length; i++) {
            Instance instance = instances.get(next.reads[i]);
            if (orderly(instance.config().get(ORDERLY))) {
                where = "on broker instance '" + instance.name() + "'";
            }
        }
        if (where != null) {
            throw new ConfigurationException("Route " + next.route + " of '" + request.destination() + "' is refused: the "
                    + "subscription (group '" + request.group() + "') asks for per-key order (" + ORDERLY + "=orderly, set "
                    + where + "), which a per-message split cannot keep, since it sends a key's messages to every "
                    + "instance; use Route.split(weights) without perMessage() (a key stays on one instance), or "
                    + "Route.mirror(primary, shadow) to compare the brokers on the same messages, or set " + ORDERLY
                    + "=concurrently " + where + " if the handler does not need per-key order");
        }
    }

    private static boolean orderly(String value) {
        return value != null && value.trim().toLowerCase(Locale.ROOT).equals("orderly");
    }

    /**
     * Refuses a route naming an instance this Switchboard does not have, and a route over several
     * instances of which one writes no envelope ({@link EnvelopeFormat#NONE}).
     *
     * @param what the route's role, as the error names it
     */
    static void instances(String what, Route route, Set<String> names, List<Instance> instances) {
        for (String name : route.instances()) {
            if (!names.contains(name)) {
                throw new ConfigurationException("The " + what + " " + route + " names broker instance '" + name
                        + "', which this Switchboard does not have (instances: " + names
                        + "); declare it with instance(\"" + name + "\", broker, properties) or correct the route");
            }
        }
        if (route.instances().size() > 1) {
            for (Instance i : instances) {
                if (route.instances().contains(i.name())) {
                    EnvelopeFormat.checkSpan("The " + what + " " + route, route.instances(), i.config());
                }
            }
        }
    }
}
