package io.switchboard.spring.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.Switchboard;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spring.BrokerInstanceMapper;
import io.switchboard.spring.ControlProperties;
import io.switchboard.spring.InstanceProperties;
import io.switchboard.spring.InvalidSwitchboardPropertyException;
import io.switchboard.spring.RouteProperties;
import io.switchboard.spring.SwitchboardProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns {@link SwitchboardProperties} into a {@link Switchboard}: checks every instance (type,
 * connection settings, settings of another type), maps it to adapter properties, and adds the
 * properties common to every instance. Every problem is an {@link InvalidSwitchboardPropertyException}
 * naming the property, the value and the fix.
 */
public final class SwitchboardFactory {

    private static final Logger log = LoggerFactory.getLogger(SwitchboardFactory.class);

    /** The artifact that brings each adapter the starter knows. */
    private static final Map<String, String> ARTIFACTS = Map.of(
            "kafka", "io.switchboard:switchboard-kafka",
            "rabbitmq", "io.switchboard:switchboard-rabbit",
            "rocketmq", "io.switchboard:switchboard-rocketmq",
            "memory", "io.switchboard:switchboard-core");

    /** Connection settings and the one type each belongs to. */
    private static final Map<String, String> SETTING_OWNERS = Map.of(
            "bootstrap-servers", "kafka", "uri", "rabbitmq", "host", "rabbitmq", "port", "rabbitmq",
            "username", "rabbitmq", "password", "rabbitmq", "virtual-host", "rabbitmq", "ssl", "rabbitmq",
            "name-server", "rocketmq");

    private final SwitchboardProperties properties;
    private final Map<String, BrokerInstanceMapper> mappers = new LinkedHashMap<>();
    private final Set<String> availableAdapters;

    /**
     * Creates the factory.
     *
     * @param properties the bound properties
     * @param mappers the mappers of the adapters on the classpath
     * @param availableAdapters the adapter ids {@link java.util.ServiceLoader} finds
     */
    public SwitchboardFactory(SwitchboardProperties properties, Collection<BrokerInstanceMapper> mappers,
            Set<String> availableAdapters) {
        this.properties = properties;
        mappers.forEach(m -> this.mappers.putIfAbsent(m.type(), m));
        this.availableAdapters = availableAdapters;
    }

    /**
     * The application's name ({@code spring.application.name}), the default fleet name of the control channel.
     *
     * @return this factory
     */
    public SwitchboardFactory applicationName(String name) {
        this.applicationName = name == null || name.isBlank() ? null : name.replaceAll("[^A-Za-z0-9_-]", "-");
        return this;
    }

    private String applicationName;
    private boolean bootDistribution;

    /**
     * Whether Spring Boot's {@code management.metrics.distribution.*} configures percentiles, histograms or SLOs for
     * Switchboard's meters (or {@code all}): they apply to Micrometer Timers only, so without an explicit
     * {@code switchboard.metrics.timers} the instances use Micrometer Timers (the default anyway; said explicitly so
     * that the distribution settings keep working whatever the core default).
     *
     * @return this factory
     */
    public SwitchboardFactory bootDistribution(boolean configured) {
        this.bootDistribution = configured;
        return this;
    }

    /**
     * The adapter ids on the classpath. A provider that cannot be loaded (a services entry whose
     * class is missing) is left out with a warning instead of failing every other adapter.
     */
    public static Set<String> availableAdapters() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        Set<String> ids = new TreeSet<>();
        Iterator<BrokerAdapterFactory> factories = ServiceLoader.load(BrokerAdapterFactory.class,
                context != null ? context : SwitchboardFactory.class.getClassLoader()).iterator();
        // after an error the iterator goes on with the next provider; the bound guards against one that never ends
        for (int attempts = 0; attempts < 1000; attempts++) {
            try {
                if (!factories.hasNext()) {
                    break;
                }
                ids.add(factories.next().id());
            } catch (ServiceConfigurationError e) {
                log.warn("Skipping a broker adapter that cannot be loaded: {}", e.getMessage());
            }
        }
        return ids;
    }

    /** One checked instance: its name, adapter id and adapter properties. */
    public record ResolvedInstance(String name, String type, Map<String, String> properties) {
        @Override
        public String toString() {
            return "ResolvedInstance[" + name + " (" + type + ")]";
        }
    }

    /** Every instance, checked and mapped; the in-memory one when none is configured. */
    public List<ResolvedInstance> instances() {
        Map<String, InstanceProperties> configured = properties.getInstances();
        if (configured.isEmpty()) {
            return List.of(new ResolvedInstance(SwitchboardProperties.MEMORY_INSTANCE, "memory", Map.of()));
        }
        List<ResolvedInstance> resolved = new ArrayList<>();
        configured.forEach((name, instance) -> resolved.add(resolve(name, instance)));
        return resolved;
    }

    /** The default instance's name, checked against the configured ones. */
    public String defaultInstance(List<ResolvedInstance> instances) {
        String chosen = properties.getDefaultInstance();
        Set<String> names = instances.stream().map(ResolvedInstance::name).collect(Collectors.toCollection(TreeSet::new));
        if (chosen == null || chosen.isBlank()) {
            return instances.get(0).name();
        }
        if (!names.contains(chosen)) {
            throw new InvalidSwitchboardPropertyException("switchboard.default-instance", chosen,
                    "no instance has this name", "Name one of the instances under switchboard.instances: " + names);
        }
        return chosen;
    }

    /** Properties every instance gets: the typed top-level settings, destination resilience, and switchboard.properties. */
    public Map<String, String> commonProperties() {
        Map<String, String> common = new LinkedHashMap<>();
        putIfSet(common, "switchboard.source", properties.getSource());
        putIfSet(common, "switchboard.type", properties.getEventType());
        putIfSet(common, "switchboard.auto-provision", properties.getAutoProvision());
        putIfSet(common, "switchboard.partitions", properties.getPartitions());
        putIfSet(common, "switchboard.provisioning", properties.getProvisioning());
        if (!properties.getMetrics().getSlo().isEmpty()) {
            common.put("switchboard.metrics.slo", properties.getMetrics().getSlo().stream()
                    .map(d -> d.toNanos() % 1_000_000 == 0 ? d.toMillis() + "ms" : d.toString())
                    .collect(Collectors.joining(",")));
        }
        if (properties.getMetrics().isHistogram()) {
            common.put("switchboard.metrics.histogram", "true");
        }
        putIfSet(common, "switchboard.metrics.timers", properties.getMetrics().getTimers() != null
                ? properties.getMetrics().getTimers() : bootDistribution ? "micrometer" : null);
        common.putAll(properties.getResilience().toCoreProperties("switchboard.resilience."));
        properties.getDestinations().forEach((name, destination) -> common.putAll(
                destination.getResilience().toCoreProperties("switchboard.destination." + name + ".resilience.")));
        control(common);
        properties.getProperties().forEach((k, v) -> putIfSet(common, k, v));
        return common;
    }

    /** switchboard.control.* as core properties; the fleet defaults to spring.application.name. */
    private void control(Map<String, String> common) {
        ControlProperties c = properties.getControl();
        putIfSet(common, "switchboard.control.enabled", c.getEnabled());
        putIfSet(common, "switchboard.control.instance", c.getInstance());
        boolean on = Boolean.TRUE.equals(c.getEnabled()) || c.getInstance() != null || c.getFleet() != null;
        putIfSet(common, "switchboard.control.fleet", c.getFleet() != null ? c.getFleet() : on ? applicationName : null);
        putIfSet(common, "switchboard.control.replica", c.getReplica());
        putIfSet(common, "switchboard.control.startup-timeout", c.getStartupTimeout() == null ? null : c.getStartupTimeout().toMillis() + "ms");
        putIfSet(common, "switchboard.control.write-timeout", c.getWriteTimeout() == null ? null : c.getWriteTimeout().toMillis() + "ms");
        putIfSet(common, "switchboard.control.replica-timeout", c.getReplicaTimeout() == null ? null : c.getReplicaTimeout().toMillis() + "ms");
        putIfSet(common, "switchboard.control.refresh", c.getRefresh() == null ? null : c.getRefresh().toMillis() + "ms");
    }

    /**
     * Builds the Switchboard.
     *
     * @param meterRegistry Boot's registry, or null
     * @param observationRegistry Boot's observation registry, or null
     */
    public Switchboard create(MeterRegistry meterRegistry, ObservationRegistry observationRegistry) {
        List<ResolvedInstance> instances = instances();
        String defaultInstance = defaultInstance(instances);
        List<String> names = instances.stream().map(ResolvedInstance::name).toList();
        Map<String, Route> routes = new LinkedHashMap<>();
        properties.getRoutes().forEach((destination, route) ->
                routes.put(destination, Routes.toRoute("switchboard.routes." + destination, route, names)));
        properties.getRoutes().forEach((destination, route) ->
                Routes.toGate("switchboard.routes." + destination, route.getGate(), names));
        Route defaultRoute = defaultRoute(names, defaultInstance);
        Switchboard.Builder builder = Switchboard.builder().properties(commonProperties())
                .meterRegistry(meterRegistry).observationRegistry(observationRegistry);
        if (instances.size() == 1 && routes.isEmpty() && properties.getDefaultRoute().isEmpty()) {
            ResolvedInstance only = instances.get(0);
            builder.broker(only.type()).instanceName(only.name()).properties(only.properties());
        } else {
            instances.forEach(i -> builder.instance(i.name(), i.type(), i.properties()));
            routes.forEach(builder::route);
            builder.defaultRoute(defaultRoute);
        }
        Switchboard switchboard = builder.build();
        log.info("Switchboard started with instances {}; default route {}", names, defaultRoute);
        return switchboard;
    }

    /** The default route: switchboard.default-route, else single(default instance). */
    private Route defaultRoute(List<String> names, String defaultInstance) {
        RouteProperties configured = properties.getDefaultRoute();
        if (configured.isEmpty()) {
            return Route.single(defaultInstance);
        }
        if (properties.getDefaultInstance() != null) {
            throw new InvalidSwitchboardPropertyException("switchboard.default-instance", properties.getDefaultInstance(),
                    "switchboard.default-route is set too, and the two could disagree",
                    "Keep one: default-instance for all traffic on one instance, default-route for any other route");
        }
        return Routes.toRoute("switchboard.default-route", configured, names);
    }

    /** The promotion gates configured on routes, by destination. */
    public Map<String, PromotionGate> gates() {
        List<String> names = instances().stream().map(ResolvedInstance::name).toList();
        Map<String, PromotionGate> gates = new LinkedHashMap<>();
        properties.getRoutes().forEach((destination, route) -> {
            PromotionGate gate = Routes.toGate("switchboard.routes." + destination, route.getGate(), names);
            if (gate != null) {
                gates.put(destination, gate);
            }
        });
        return gates;
    }

    private ResolvedInstance resolve(String name, InstanceProperties instance) {
        String type = checkedType(name, instance);
        checkNoForeignSettings(name, type, instance);
        Map<String, String> adapterProperties = new LinkedHashMap<>();
        instance.getProperties().forEach((key, value) -> putIfSet(adapterProperties, prefixed(type, key), value));
        BrokerInstanceMapper mapper = mappers.get(type);
        if (mapper != null) {
            mapper.contribute(name, instance, adapterProperties);
        }
        adapterProperties.putAll(instance.getResilience().toCoreProperties("switchboard.resilience."));
        return new ResolvedInstance(name, type, adapterProperties);
    }

    private String checkedType(String name, InstanceProperties instance) {
        String property = BrokerMappers.property(name, "type");
        String raw = instance.getType();
        Set<String> known = new TreeSet<>(availableAdapters);
        if (raw == null || raw.isBlank()) {
            throw new InvalidSwitchboardPropertyException(property, null, "every instance needs a broker type",
                    "Set " + property + " to one of " + known);
        }
        String type = raw.trim().toLowerCase(Locale.ROOT);
        if (availableAdapters.contains(type)) {
            return type;
        }
        if (ARTIFACTS.containsKey(type)) {
            throw new InvalidSwitchboardPropertyException(property, raw, "the " + type + " adapter is not on the classpath",
                    "Add the dependency " + ARTIFACTS.get(type) + " to the application, or choose one of " + known);
        }
        throw new InvalidSwitchboardPropertyException(property, raw, "no broker adapter has this id",
                "Use one of " + known + (type.startsWith("rabbit") ? " (RabbitMQ is 'rabbitmq')" : "")
                        + "; other adapters need their jar on the classpath");
    }

    private static void checkNoForeignSettings(String name, String type, InstanceProperties i) {
        Map<String, Object> set = new LinkedHashMap<>();
        if (!i.getBootstrapServers().isEmpty()) {
            set.put("bootstrap-servers", i.getBootstrapServers());
        }
        set.put("uri", i.getUri());
        set.put("host", i.getHost());
        set.put("port", i.getPort());
        set.put("username", i.getUsername());
        set.put("password", i.getPassword());
        set.put("virtual-host", i.getVirtualHost());
        set.put("ssl", i.isSsl() ? Boolean.TRUE : null);
        set.put("name-server", i.getNameServer());
        set.forEach((setting, value) -> {
            String owner = SETTING_OWNERS.get(setting);
            if (value != null && !owner.equals(type)) {
                throw new InvalidSwitchboardPropertyException(BrokerMappers.property(name, setting),
                        setting.equals("password") || setting.equals("uri") ? "******" : String.valueOf(value),
                        "it is a " + owner + " setting but the instance's type is " + type,
                        "Remove it, or set " + BrokerMappers.property(name, "type") + " to " + owner);
            }
        });
    }

    /** An instance property key as the adapter reads it: type-prefixed unless it already names a type or core. */
    static String prefixed(String type, String key) {
        if (key.startsWith(type + ".") || key.startsWith("switchboard.")) {
            return key;
        }
        return type + "." + key;
    }

    private static void putIfSet(Map<String, String> target, String key, Object value) {
        if (value instanceof Duration d) {
            target.put(key, d.toMillis() + "ms");
        } else if (value != null) {
            target.put(key, value.toString());
        }
    }
}
