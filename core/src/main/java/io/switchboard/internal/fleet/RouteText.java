package io.switchboard.internal.fleet;

import io.switchboard.ConfigurationException;
import io.switchboard.routing.Route;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A route as one line of text, as the fleet's route records carry it: {@code single:a},
 * {@code split:a=80,b=20} (per message: {@code split-per-message:a=50,b=50}), {@code mirror:a,b} (or {@code mirror:a,b,observe}),
 * {@code failover:a,b}, {@code migrate:from,to}.
 */
public final class RouteText {

    private RouteText() {}

    /** The route as text. */
    public static String format(Route route) {
        return switch (route.mode()) {
            case SINGLE -> "single:" + route.primary();
            case SPLIT -> {
                String head = route.isPerMessage() ? "split-per-message:" : "split:";
                StringBuilder b = new StringBuilder(head);
                route.weights().forEach((instance, weight) -> {
                    if (b.length() > head.length()) {
                        b.append(',');
                    }
                    b.append(instance).append('=').append(weight);
                });
                yield b.toString();
            }
            case MIRROR -> "mirror:" + route.primary() + "," + route.shadow() + (route.isObserveOnly() ? ",observe" : "");
            case FAILOVER -> "failover:" + route.primary() + "," + route.secondary();
            case MIGRATE -> "migrate:" + route.from() + "," + route.to();
        };
    }

    /**
     * A route from its text.
     *
     * @throws ConfigurationException when the text is not a route
     */
    public static Route parse(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new ConfigurationException("Route text '" + text + "' has no mode; expected such as 'split:a=80,b=20'");
        }
        String mode = text.substring(0, colon);
        String[] parts = text.substring(colon + 1).split(",");
        return switch (mode) {
            case "single" -> Route.single(parts[0]);
            case "split", "split-per-message" -> {
                Map<String, Integer> weights = new LinkedHashMap<>();
                for (String p : parts) {
                    int eq = p.indexOf('=');
                    weights.put(p.substring(0, eq), Integer.valueOf(p.substring(eq + 1)));
                }
                Route split = Route.split(weights);
                yield mode.equals("split") ? split : split.perMessage();
            }
            case "mirror" -> Route.mirror(parts[0], parts[1]).observeOnly(parts.length > 2 && parts[2].equals("observe"));
            case "failover" -> Route.failover(parts[0], parts[1]);
            case "migrate" -> Route.migrate(parts[0], parts[1]);
            default -> throw new ConfigurationException("Route text '" + text + "' has unknown mode '" + mode + "'");
        };
    }
}
