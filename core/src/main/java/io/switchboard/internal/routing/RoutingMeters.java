package io.switchboard.internal.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.switchboard.internal.Instance;
import io.switchboard.internal.metrics.Meters;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The routing layer's meters. Counters a publisher increments per message are registered once,
 * when it is built; the others are looked up when something changes, never per message.
 *
 * <ul>
 *   <li>{@code switchboard.routing.decisions} (destination, instance, broker): messages routed to each instance;</li>
 *   <li>{@code switchboard.routing.fallbacks} (destination, instance, broker): failover resends to the secondary
 *       after a primary publish failed;</li>
 *   <li>{@code switchboard.routing.shadow} (destination, outcome = sent | failed | dropped): mirror publishes to the shadow;</li>
 *   <li>{@code switchboard.routing.changes} (destination, mode): route changes;</li>
 *   <li>{@code switchboard.routing.weight} (destination, instance, broker): gauge, current share of new publishes in percent;</li>
 *   <li>{@code switchboard.routing.gate.step} (destination): gauge, the promotion target's percentage;</li>
 *   <li>{@code switchboard.routing.gate.transitions} (destination, outcome = advance | rollback | complete | cancel);</li>
 *   <li>{@code switchboard.client.cpu} (instance, broker): function counter, seconds of CPU in the instance's client;</li>
 *   <li>{@code switchboard.wire.bytes} (instance, broker): gauge, mean bytes on the wire per published message.</li>
 * </ul>
 */
final class RoutingMeters {

    static final String DECISIONS = "switchboard.routing.decisions";
    static final String FALLBACKS = "switchboard.routing.fallbacks";
    static final String SHADOW = "switchboard.routing.shadow";
    static final String CHANGES = "switchboard.routing.changes";
    static final String WEIGHT = "switchboard.routing.weight";
    static final String GATE_STEP = "switchboard.routing.gate.step";
    static final String GATE_TRANSITIONS = "switchboard.routing.gate.transitions";

    private final List<Instance> instances;
    private final Supplier<MeterRegistry> registry;

    RoutingMeters(List<Instance> instances, Supplier<MeterRegistry> registry) {
        this.instances = instances;
        this.registry = registry;
    }

    private Counter[] perInstance(String name, String description, String destination) {
        Counter[] counters = new Counter[instances.size()];
        MeterRegistry r = registry.get();
        if (r != null) {
            for (Instance i : instances) {
                counters[i.index()] = Counter.builder(name).description(description)
                        .tags(Tags.of("destination", destination, "instance", i.name(), "broker", i.brokerId())).register(r);
            }
        }
        return counters;
    }

    Counter[] decisionCounters(String destination) {
        return perInstance(DECISIONS, "Messages routed to each broker instance", destination);
    }

    Counter[] fallbackCounters(String destination) {
        return perInstance(FALLBACKS, "Failover resends to the secondary after the primary failed", destination);
    }

    /** sent, failed, dropped. */
    Counter[] shadowCounters(String destination) {
        Counter[] c = new Counter[3];
        MeterRegistry r = registry.get();
        if (r != null) {
            String[] outcomes = {"sent", "failed", "dropped"};
            for (int k = 0; k < 3; k++) {
                c[k] = Counter.builder(SHADOW).description("Mirror publishes to the shadow instance")
                        .tags("destination", destination, "outcome", outcomes[k]).register(r);
            }
        }
        return c;
    }

    void changed(String destination, String mode) {
        MeterRegistry r = registry.get();
        if (r != null) {
            Counter.builder(CHANGES).description("Route changes").tags("destination", destination, "mode", mode).register(r)
                    .increment();
        }
    }

    void weightGauges(String destination, RouteBinding binding) {
        MeterRegistry r = registry.get();
        if (r != null) {
            for (Instance i : instances) {
                ToDoubleFunction<RouteBinding> f = b -> b.state().percent(i.name());
                Gauge.builder(WEIGHT, binding, f).description("Share of new publishes, percent")
                        .tags("destination", destination, "instance", i.name(), "broker", i.brokerId()).register(r);
            }
        }
    }

    /** Per instance, its client's CPU and the mean bytes on the wire per published message (when the comparison is on). */
    void costMeters(io.switchboard.internal.comparison.TrafficBook book) {
        MeterRegistry r = registry.get();
        if (r == null || book == null) {
            return;
        }
        for (Instance i : instances) {
            io.switchboard.internal.comparison.ClientCost.Account a = book.cost().find(i.name());
            if (a != null) {
                io.micrometer.core.instrument.FunctionCounter.builder(Meters.CLIENT_CPU, a, x -> x.cpuNanos() / 1e9)
                        .baseUnit("seconds").description("CPU time spent in the instance's client: its threads, core's handler "
                                + "lanes without the handlers, and the publish calls (sampled)")
                        .tags("instance", i.name(), "broker", i.brokerId()).register(r);
                Gauge.builder(Meters.WIRE_BYTES, a, x -> x.wireBytesPerMessage()).baseUnit("bytes")
                        .description("Mean bytes on the wire per published message: payload, key and headers (sampled)")
                        .tags("instance", i.name(), "broker", i.brokerId()).register(r);
            }
        }
    }

    void gateStep(String destination, java.util.concurrent.atomic.AtomicInteger percent) {
        MeterRegistry r = registry.get();
        if (r != null) {
            Gauge.builder(GATE_STEP, percent, java.util.concurrent.atomic.AtomicInteger::get)
                    .description("Promotion target's percentage").tags("destination", destination).register(r);
        }
    }

    void gateTransition(String destination, String outcome) {
        MeterRegistry r = registry.get();
        if (r != null) {
            Counter.builder(GATE_TRANSITIONS).description("Promotion gate steps, rollbacks, completions")
                    .tags("destination", destination, "outcome", outcome).register(r).increment();
        }
    }
}
