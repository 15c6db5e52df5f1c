package io.switchboard.internal.routing;

import io.switchboard.routing.Route;
import io.switchboard.routing.RoutingMode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A route resolved against the Switchboard's instances: what the publish path reads, once per
 * message, through one volatile field. Immutable.
 */
final class RouteState {

    final Route route;
    final RoutingMode mode;
    /** Instance indexes with a positive split weight, and their cumulative weights. */
    private final int[] targets;
    private final int[] cumulative;
    private final int total;
    /** Single instance, mirror/failover primary, migration target; -1 for a split. */
    final int primary;
    /** Mirror shadow, failover secondary, migration source; -1 otherwise. */
    final int secondary;
    final boolean observeOnly;
    /** A split that assigns every message at random by weight, keyed or not. */
    final boolean perMessage;
    /** Subscriptions deduplicate by message id across instances (failover and migrate can deliver an id twice). */
    final boolean dedup;
    /** Every instance index the route may send to. */
    final int[] reads;

    RouteState(Route route, Map<String, Integer> index) {
        this.route = route;
        this.mode = route.mode();
        List<Map.Entry<String, Integer>> positive = route.weights().entrySet().stream().filter(e -> e.getValue() > 0).toList();
        this.targets = new int[positive.size()];
        this.cumulative = new int[positive.size()];
        int sum = 0;
        for (int i = 0; i < positive.size(); i++) {
            targets[i] = index.get(positive.get(i).getKey());
            sum += positive.get(i).getValue();
            cumulative[i] = sum;
        }
        this.total = sum;
        this.primary = route.primary() == null ? -1 : index.get(route.primary());
        String second = route.shadow() != null ? route.shadow() : route.secondary() != null ? route.secondary() : route.from();
        this.secondary = second == null ? -1 : index.get(second);
        this.observeOnly = route.isObserveOnly();
        this.perMessage = route.isPerMessage();
        this.dedup = mode == RoutingMode.FAILOVER || mode == RoutingMode.MIGRATE;
        this.reads = route.instances().stream().mapToInt(index::get).toArray();
    }

    /**
     * The instance of a split: a key's bucket is its hash, mixed, modulo the total weight, so a key
     * stays on one instance while the weights are unchanged; a keyless message, and every message of a
     * per-message split, is weighted at random ({@link ThreadLocalRandom}: no lock). No allocation.
     */
    int pick(String key) {
        if (targets.length == 1) {
            return targets[0];
        }
        int bucket;
        if (key == null || perMessage) {
            bucket = ThreadLocalRandom.current().nextInt(total);
        } else {
            int h = key.hashCode() * 0x9E3779B9;
            h ^= h >>> 16;
            bucket = (h & 0x7fffffff) % total;
        }
        for (int i = 0; i < cumulative.length - 1; i++) {
            if (bucket < cumulative[i]) {
                return targets[i];
            }
        }
        return targets[targets.length - 1];
    }

    /** True when the route sends to more than one instance by weight. */
    boolean spreads() {
        return targets.length > 1;
    }

    /** True when the route sends to or reads from instance {@code i}. */
    boolean reads(int i) {
        for (int r : reads) {
            if (r == i) {
                return true;
            }
        }
        return false;
    }

    /** The weight of instance {@code name} in percent of the total (0 when absent). */
    double percent(String name) {
        Integer w = route.weights().get(name);
        int sum = route.weights().values().stream().mapToInt(Integer::intValue).sum();
        return w == null || sum == 0 ? 0 : 100.0 * w / sum;
    }
}
