package io.switchboard.internal.routing;

import io.switchboard.ConfigurationException;
import io.switchboard.internal.Instance;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.routing.Route;
import java.util.List;
import java.util.Set;

/** The checks of a route against the instances of a Switchboard, before it is used. */
final class RouteChecks {

    private RouteChecks() {}

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
