package io.switchboard;

import io.switchboard.internal.AdapterLoader;
import io.switchboard.internal.Instance;
import io.switchboard.internal.Shared;
import io.switchboard.internal.comparison.GcPauses;
import io.switchboard.internal.comparison.Timeline;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.internal.idempotency.InMemoryIdempotencyStore;
import io.switchboard.internal.routing.Router;
import io.switchboard.routing.Route;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a {@link Switchboard} from what its {@link Switchboard.Builder} was given: checks the
 * choices, finds the adapters, creates the instances and, with several, the router.
 */
final class SwitchboardAssembly {

    private static final Pattern INSTANCE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    private static final Logger log = LoggerFactory.getLogger(Switchboard.class);

    /** A named instance as declared: its adapter id and its own properties. */
    record Definition(String broker, Map<String, String> properties) {}

    private SwitchboardAssembly() {}

    /** Checks a named instance's declaration and copies its properties, refusing null keys and values. */
    static Definition definition(String name, String brokerId, Map<String, String> properties, Set<String> defined) {
        if (name == null || !INSTANCE_NAME.matcher(name).matches()) {
            throw new ConfigurationException("Broker instance name '" + name + "' is not valid: use 1 to 63 letters, digits,"
                    + " '.', '_' or '-', starting with a letter or digit, such as \"a\" or \"kafka-eu\"");
        }
        if (defined.contains(name)) {
            throw new ConfigurationException("Broker instance '" + name + "' is defined twice; give each instance its own name");
        }
        Map<String, String> copy = new LinkedHashMap<>();
        properties.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, () -> "value of " + k)));
        return new Definition(brokerId, copy);
    }

    /** Closes the instances' adapters, logging (not throwing) what fails. */
    static void closeQuietly(Collection<Instance> instances) {
        for (Instance i : instances) {
            try {
                i.close();
            } catch (RuntimeException e) {
                log.warn("Closing broker instance '{}' failed", i.name(), e);
            }
        }
    }

    static Switchboard build(Switchboard.Builder b) {
        IdempotencyStore store = b.idempotencyStore != null ? b.idempotencyStore : new InMemoryIdempotencyStore(100_000);
        if (b.definitions.isEmpty()) {
            return buildOne(b, store);
        }
        if (b.brokerId != null || b.instanceName != null) {
            throw new ConfigurationException("Both broker('" + b.brokerId + "') and instance(..) were called; a Switchboard is "
                    + "either one broker (broker(id)) or named instances (instance(name, broker, properties)), not both");
        }
        BrokerConfig common = new BrokerConfig("common", "common", b.properties);
        Duration window = common.getDuration("switchboard.comparison.window", Duration.ofSeconds(60));
        if (window.toSeconds() < 1 || window.toSeconds() > 3600) {
            throw new ConfigurationException("Property 'switchboard.comparison.window' is " + window
                    + " but must be between 1s and 1h, such as 60s");
        }
        boolean compare = common.getBoolean("switchboard.comparison.enabled", true);
        Shared shared = new Shared(b.observationRegistry, store,
                compare ? new TrafficBook((int) window.toSeconds(), b.clock) : null, timeline(common, b));
        Map<String, Instance> made = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, Definition> d : b.definitions.entrySet()) {
                Map<String, String> merged = new LinkedHashMap<>(b.properties);
                merged.putAll(d.getValue().properties());
                BrokerConfig config = config(d.getKey(), d.getValue().broker(), merged, shared.events());
                made.put(d.getKey(), new Instance(made.size(), config, AdapterLoader.find(config.adapterId()).create(config),
                        shared));
            }
            Router router = new Router(List.copyOf(made.values()), common,
                    b.defaultRoute != null ? b.defaultRoute : Route.single(made.keySet().iterator().next()), b.routes,
                    b.clock);
            Switchboard sb = bound(new Switchboard(made, shared, router), b);
            log.info("Switchboard started with broker instances {}; default route {}, routes {}", made.keySet(),
                    router.defaultRoute(), router.routes());
            return sb;
        } catch (RuntimeException e) {
            made.values().forEach(Instance::close);
            throw e;
        }
    }

    private static Switchboard buildOne(Switchboard.Builder b, IdempotencyStore store) {
        if (!b.routes.isEmpty() || b.defaultRoute != null) {
            throw new ConfigurationException("Routes " + (b.defaultRoute != null ? "(default " + b.defaultRoute + ") " : "")
                    + b.routes.keySet() + " need broker instances to route between; declare each broker with "
                    + "instance(name, broker, properties) instead of broker(id)");
        }
        if (b.brokerId == null || b.brokerId.isBlank()) {
            throw new ConfigurationException("No broker chosen: call broker(id) with one of " + AdapterLoader.availableIds()
                    + ", or instance(name, broker, properties) once per broker");
        }
        String name = b.instanceName == null ? b.brokerId : b.instanceName;
        Shared shared = new Shared(b.observationRegistry, store, null,
                timeline(new BrokerConfig("common", "common", b.properties), b));
        BrokerConfig config = config(name, b.brokerId, b.properties, shared.events());
        Map<String, Instance> one = new LinkedHashMap<>();
        one.put(name, new Instance(0, config, AdapterLoader.find(b.brokerId).create(config), shared));
        Switchboard sb = bound(new Switchboard(one, shared, null), b);
        log.debug("Switchboard started on {}", config);
        return sb;
    }

    private static Switchboard bound(Switchboard sb, Switchboard.Builder b) {
        if (b.meterRegistry != null) {
            sb.bindTo(b.meterRegistry);
        }
        return sb;
    }

    /**
     * The instances' timeline: spans left open are closed after {@code switchboard.events.open-span-limit} (10 min), GC
     * pauses of at least {@code switchboard.events.gc-pause-threshold} (100 ms; 0 turns them off) are put on it.
     */
    private static Timeline timeline(BrokerConfig common, Switchboard.Builder b) {
        Timeline timeline = new Timeline(b.clock,
                common.getPositiveDuration("switchboard.events.open-span-limit", Duration.ofMinutes(10)));
        Duration gc = common.getDuration("switchboard.events.gc-pause-threshold", Duration.ofMillis(100));
        if (gc.isNegative()) {
            throw new ConfigurationException("Property 'switchboard.events.gc-pause-threshold' is " + gc
                    + " but must be 0 (off) or more, such as 100ms");
        }
        if (!gc.isZero()) {
            GcPauses.register(timeline, gc.toMillis());
        }
        return timeline;
    }

    private static BrokerConfig config(String name, String broker, Map<String, String> props, Timeline events) {
        if (broker == null || broker.isBlank()) {
            throw new ConfigurationException("Broker instance '" + name + "' has no broker id; use one of "
                    + AdapterLoader.availableIds());
        }
        BrokerConfig config = new BrokerConfig(name, broker, props, events.register(name, broker));
        EnvelopeFormat.of(config); // a bad switchboard.envelope fails here, before the adapter connects
        return config;
    }
}
