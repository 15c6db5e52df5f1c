package io.switchboard.routing;

import io.switchboard.ConfigurationException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where a destination's messages go: one of the {@link RoutingMode}s over named broker instances.
 * Immutable; checked for shape when made (weights, distinct instances) and against the
 * Switchboard's instances when applied. Use the factories:
 *
 * <pre>{@code
 * Route.single("a");
 * Route.split(Map.of("a", 90, "b", 10));        // sticky by key hash
 * Route.split(Map.of("a", 50, "b", 50)).perMessage(); // every message at random: both carry the same mix of keys
 * Route.mirror("a", "b");                       // b is the shadow; subscribers observe b only
 * Route.failover("a", "b");                     // b while a's circuit breaker is open
 * Route.migrate("a", "b");                      // publish to b, read both until a is drained
 * }</pre>
 */
public final class Route {

    private final RoutingMode mode;
    private final Map<String, Integer> weights;
    private final String primary;
    private final String secondary;
    private final boolean observeOnly;
    private final boolean perMessage;

    private Route(RoutingMode mode, Map<String, Integer> weights, String primary, String secondary, boolean observeOnly) {
        this(mode, weights, primary, secondary, observeOnly, false);
    }

    private Route(RoutingMode mode, Map<String, Integer> weights, String primary, String secondary, boolean observeOnly,
            boolean perMessage) {
        this.mode = mode;
        this.weights = weights;
        this.primary = primary;
        this.secondary = secondary;
        this.observeOnly = observeOnly;
        this.perMessage = perMessage;
    }

    /**
     * {@return a route of every message to {@code instance}}
     *
     * @param instance the instance's name
     */
    public static Route single(String instance) {
        return new Route(RoutingMode.SINGLE, Map.of(name(instance, "single", "instance"), 100), instance, null, false);
    }

    /**
     * {@return a weighted split: a key goes to one instance chosen by its hash (so it keeps its order while the
     * weights are unchanged); keyless messages are weighted at random} Each instance then carries its own keys, so a
     * comparison of them is not like for like where keys differ (payload size per tenant): {@link #perMessage()}
     * assigns every message at random instead. Weights are relative (90/10 and 9/1 are the
     * same split); an instance with weight 0 gets nothing.
     *
     * @param weights the weight of each instance, by name
     * @throws ConfigurationException when a weight is negative or they do not sum to a positive total
     */
    public static Route split(Map<String, Integer> weights) {
        Objects.requireNonNull(weights, "weights");
        Map<String, Integer> copy = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<String, Integer> e : weights.entrySet()) {
            name(e.getKey(), "split", "weights key");
            Integer w = e.getValue();
            if (w == null || w < 0) {
                throw new ConfigurationException("Split weight of instance '" + e.getKey() + "' is " + w
                        + " but must be 0 or more, such as 90 and 10");
            }
            copy.put(e.getKey(), w);
            total += w;
        }
        if (total <= 0 || total > 1_000_000) {
            throw new ConfigurationException("Split weights " + weights + " sum to " + total
                    + " but must sum to a positive total of at most 1,000,000; give at least one instance a weight, "
                    + "such as {a=90, b=10}");
        }
        return new Route(RoutingMode.SPLIT, Collections.unmodifiableMap(copy), null, null, false);
    }

    /**
     * {@return a mirror route: every message to {@code primary} and, best effort, to {@code shadow}}
     *
     * @param primary the instance that carries the traffic
     * @param shadow the instance that gets a copy
     */
    public static Route mirror(String primary, String shadow) {
        return two(RoutingMode.MIRROR, primary, shadow, "primary", "shadow", true);
    }

    /**
     * {@code primary} while its circuit breaker lets calls through, else {@code secondary}.
     *
     * @param primary the instance used while it is healthy
     * @param secondary the instance used while it is not
     * @return the failover route
     */
    public static Route failover(String primary, String secondary) {
        return two(RoutingMode.FAILOVER, primary, secondary, "primary", "secondary", false);
    }

    /**
     * Publish to {@code to}; subscribers read both, deduplicating by id, until {@code from} is drained.
     *
     * @param from the instance moved away from
     * @param to the instance moved to
     * @return the migration route
     */
    public static Route migrate(String from, String to) {
        return two(RoutingMode.MIGRATE, to, from, "to", "from", false);
    }

    private static Route two(RoutingMode mode, String first, String second, String firstRole, String secondRole, boolean observe) {
        String m = mode.name().toLowerCase(java.util.Locale.ROOT);
        name(first, m, firstRole);
        name(second, m, secondRole);
        if (first.equals(second)) {
            throw new ConfigurationException("A " + m + " route needs two different instances but " + firstRole + " and "
                    + secondRole + " are both '" + first + "'; name another instance as " + secondRole
                    + ", or use Route.single(\"" + first + "\")");
        }
        Map<String, Integer> w = new LinkedHashMap<>();
        w.put(first, 100);
        w.put(second, 0);
        return new Route(mode, Collections.unmodifiableMap(w), first, second, observe);
    }

    private static String name(String instance, String mode, String role) {
        if (instance == null || instance.isBlank()) {
            throw new ConfigurationException("A " + mode + " route's " + role + " is " + (instance == null ? "missing" : "blank")
                    + "; name a broker instance of the Switchboard, such as \"a\"");
        }
        return instance;
    }

    /**
     * For a mirror route: whether subscriptions on the shadow only observe (count and compare,
     * handler not called, the default) or also call the handler. Other modes ignore it.
     *
     * @param observe true to only observe, false to call the handler too
     * @return a copy of this route with the setting
     */
    public Route observeOnly(boolean observe) {
        return new Route(mode, weights, primary, secondary, observe, perMessage);
    }

    /**
     * For a split: every message, keyed or not, goes to an instance drawn at random by weight, instead of a key's
     * messages staying on the instance its hash picks. The instances then carry the same mix of keys, so the
     * comparison judges like with like (a key's payload size or handler cost no longer follows one instance); what is
     * given up is a key's order across the instances: two messages of one key may go to different instances and be
     * handled out of order. A subscription that asks for per-key order (RocketMQ's {@code rocketmq.consume-mode=orderly}
     * set on it or on its instance) refuses such a route.
     *
     * @return a copy of this split that assigns every message at random by weight
     * @throws ConfigurationException when this route is not a split
     */
    public Route perMessage() {
        if (mode != RoutingMode.SPLIT) {
            throw new ConfigurationException("perMessage() applies to a split, but route " + this + " is a "
                    + mode.name().toLowerCase(java.util.Locale.ROOT) + " route; use Route.split(weights).perMessage(), "
                    + "such as Route.split(Map.of(\"a\", 50, \"b\", 50)).perMessage()");
        }
        return new Route(mode, weights, primary, secondary, observeOnly, true);
    }

    /** {@return for a split, whether every message is assigned at random by weight (false: a key sticks to one instance)} */
    public boolean isPerMessage() {
        return mode == RoutingMode.SPLIT && perMessage;
    }

    /** {@return the mode} */
    public RoutingMode mode() {
        return mode;
    }

    /**
     * {@return the share each instance gets of new publishes, relative to their sum: the split's weights; 100 for
     * the instance publishers use in the other modes (single, mirror primary, failover primary, migrate target) and
     * 0 for the other}
     */
    public Map<String, Integer> weights() {
        return weights;
    }

    /** {@return the single instance, the mirror or failover primary, or the migration target; null for a split} */
    public String primary() {
        return primary;
    }

    /** {@return the mirror's shadow, or null} */
    public String shadow() {
        return mode == RoutingMode.MIRROR ? secondary : null;
    }

    /** {@return the failover secondary, or null} */
    public String secondary() {
        return mode == RoutingMode.FAILOVER ? secondary : null;
    }

    /** {@return the instance a migration moves away from, or null} */
    public String from() {
        return mode == RoutingMode.MIGRATE ? secondary : null;
    }

    /** {@return the instance a migration moves to, or null} */
    public String to() {
        return mode == RoutingMode.MIGRATE ? primary : null;
    }

    /** {@return for a mirror, whether shadow subscriptions only observe} */
    public boolean isObserveOnly() {
        return mode == RoutingMode.MIRROR && observeOnly;
    }

    /** {@return every instance this route may send to or read from, in order} */
    public Set<String> instances() {
        Set<String> all = new LinkedHashSet<>(weights.keySet());
        return Collections.unmodifiableSet(all);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Route r && r.mode == mode && r.weights.equals(weights) && Objects.equals(r.primary, primary)
                && Objects.equals(r.secondary, secondary) && r.observeOnly == observeOnly
                && r.perMessage == perMessage;
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, weights, primary, secondary, observeOnly, perMessage);
    }

    @Override
    public String toString() {
        return switch (mode) {
            case SINGLE -> "single(" + primary + ")";
            case SPLIT -> "split" + weights + (perMessage ? " per message" : "");
            case MIRROR -> "mirror(primary=" + primary + ", shadow=" + secondary + (observeOnly ? ", observe-only" : "") + ")";
            case FAILOVER -> "failover(primary=" + primary + ", secondary=" + secondary + ")";
            case MIGRATE -> "migrate(from=" + secondary + ", to=" + primary + ")";
        };
    }
}
