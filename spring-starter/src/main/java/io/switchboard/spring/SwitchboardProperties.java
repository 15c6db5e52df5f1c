package io.switchboard.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Everything under {@code switchboard.} in {@code application.yml}: named broker instances, the
 * default instance, destinations, routes between instances, and the starter's own settings. With
 * nothing configured the application runs on one in-memory instance named {@code memory}.
 *
 * <pre>{@code
 * switchboard:
 *   instances:
 *     main:
 *       type: kafka
 *       bootstrap-servers: localhost:9092
 * }</pre>
 */
@ConfigurationProperties("switchboard")
public class SwitchboardProperties {

    /** The instance name used when no instance is configured. */
    public static final String MEMORY_INSTANCE = "memory";

    /** Named broker instances; with none, one in-memory instance named 'memory'. */
    private Map<String, InstanceProperties> instances = new LinkedHashMap<>();

    /** The instance destinations use when no route names another [the only instance, or the first one]. */
    private String defaultInstance;

    /** Per destination: the route between instances (mode, instances, weights, promotion gate). */
    private Map<String, RouteProperties> routes = new LinkedHashMap<>();

    /** The route of destinations without their own [single: the default instance]. */
    @NestedConfigurationProperty
    private final RouteProperties defaultRoute = new RouteProperties();

    /** Per destination: publisher and listener settings. */
    private Map<String, DestinationProperties> destinations = new LinkedHashMap<>();

    /** CloudEvents source written into every message's envelope [switchboard]. */
    private String source;

    /** CloudEvents type written into every message's envelope [message]. */
    private String eventType;

    /** Create destinations (topics, exchanges and queues) on first use [true]. */
    private Boolean autoProvision;

    /** Partitions of destinations created on first use [4]. */
    private Integer partitions;

    /**
     * How destinations are created: background (batched rounds off the caller's thread; subscribe and build return at
     * once) or inline (each subscribe and build creates its destinations before it returns) [background].
     */
    private String provisioning;

    /** Metrics of publishers and listeners. */
    private final Metrics metrics = new Metrics();

    /** Resilience4j policies on publishing, for every instance. */
    @NestedConfigurationProperty
    private final ResilienceProperties resilience = new ResilienceProperties();

    /** The control channel the application's replicas share routes through. */
    @NestedConfigurationProperty
    private final ControlProperties control = new ControlProperties();

    /** Core and adapter properties given to every instance as they are (an instance's own win), for example switchboard.partitions. */
    private Map<String, String> properties = new LinkedHashMap<>();

    /** Annotated listeners. */
    private final Listener listener = new Listener();

    /** JSON payloads. */
    private final Json json = new Json();

    /** Health checks of the broker instances. */
    private final Health health = new Health();

    /** {@return named broker instances; with none, one in-memory instance named 'memory'} */
    public Map<String, InstanceProperties> getInstances() {
        return instances;
    }

    /**
     * Sets {@link #getInstances()}.
     *
     * @param instances the value to set
     */
    public void setInstances(Map<String, InstanceProperties> instances) {
        this.instances = instances;
    }

    /** {@return the instance destinations use when no route names another [the only instance, or the first one]} */
    public String getDefaultInstance() {
        return defaultInstance;
    }

    /**
     * Sets {@link #getDefaultInstance()}.
     *
     * @param defaultInstance the value to set
     */
    public void setDefaultInstance(String defaultInstance) {
        this.defaultInstance = defaultInstance;
    }

    /** {@return per destination: the route between instances (mode, instances, weights, promotion gate)} */
    public Map<String, RouteProperties> getRoutes() {
        return routes;
    }

    /**
     * Sets {@link #getRoutes()}.
     *
     * @param routes the value to set
     */
    public void setRoutes(Map<String, RouteProperties> routes) {
        this.routes = routes;
    }

    /** {@return the route of destinations without their own [single: the default instance]} */
    public RouteProperties getDefaultRoute() {
        return defaultRoute;
    }

    /** {@return per destination: publisher and listener settings} */
    public Map<String, DestinationProperties> getDestinations() {
        return destinations;
    }

    /**
     * Sets {@link #getDestinations()}.
     *
     * @param destinations the value to set
     */
    public void setDestinations(Map<String, DestinationProperties> destinations) {
        this.destinations = destinations;
    }

    /**
     * {@return the settings of a destination, or empty settings when it has none}
     *
     * @param name the destination's name
     */
    public DestinationProperties destination(String name) {
        DestinationProperties d = destinations.get(name);
        return d != null ? d : new DestinationProperties();
    }

    /** {@return cloudEvents source written into every message's envelope [switchboard]} */
    public String getSource() {
        return source;
    }

    /**
     * Sets {@link #getSource()}.
     *
     * @param source the value to set
     */
    public void setSource(String source) {
        this.source = source;
    }

    /** {@return cloudEvents type written into every message's envelope [message]} */
    public String getEventType() {
        return eventType;
    }

    /**
     * Sets {@link #getEventType()}.
     *
     * @param eventType the value to set
     */
    public void setEventType(String eventType) {
        this.eventType = eventType;
    }

    /** {@return whether destinations (topics, exchanges and queues) are created on first use [true]} */
    public Boolean getAutoProvision() {
        return autoProvision;
    }

    /**
     * Sets {@link #getAutoProvision()}.
     *
     * @param autoProvision the value to set
     */
    public void setAutoProvision(Boolean autoProvision) {
        this.autoProvision = autoProvision;
    }

    /** {@return how destinations are created: background or inline [background]} */
    public String getProvisioning() {
        return provisioning;
    }

    /**
     * Sets {@link #getProvisioning()}.
     *
     * @param provisioning background or inline
     */
    public void setProvisioning(String provisioning) {
        this.provisioning = provisioning;
    }

    /** {@return partitions of destinations created on first use [4]} */
    public Integer getPartitions() {
        return partitions;
    }

    /**
     * Sets {@link #getPartitions()}.
     *
     * @param partitions the value to set
     */
    public void setPartitions(Integer partitions) {
        this.partitions = partitions;
    }

    /** {@return metrics of publishers and listeners} */
    public Metrics getMetrics() {
        return metrics;
    }

    /** {@return resilience4j policies on publishing, for every instance} */
    public ResilienceProperties getResilience() {
        return resilience;
    }

    /** {@return the control channel the application's replicas share routes through} */
    public ControlProperties getControl() {
        return control;
    }

    /** {@return core and adapter properties given to every instance as they are (an instance's own win), for example switchboard.partitions} */
    public Map<String, String> getProperties() {
        return properties;
    }

    /**
     * Sets {@link #getProperties()}.
     *
     * @param properties the value to set
     */
    public void setProperties(Map<String, String> properties) {
        this.properties = properties;
    }

    /** {@return annotated listeners} */
    public Listener getListener() {
        return listener;
    }

    /** {@return JSON payloads} */
    public Json getJson() {
        return json;
    }

    /** {@return health checks of the broker instances} */
    public Health getHealth() {
        return health;
    }

    /** Metrics settings; meters go to Spring Boot's MeterRegistry when the application has one. */
    public static class Metrics {
        /** Extra SLO buckets on the latency timers, for example 1ms,5ms,25ms. */
        private List<Duration> slo = new ArrayList<>();

        /** {@return extra SLO buckets on the latency timers, for example 1ms,5ms,25ms} */
        public List<Duration> getSlo() {
            return slo;
        }

        /**
         * Sets {@link #getSlo()}.
         *
         * @param slo the value to set
         */
        public void setSlo(List<Duration> slo) {
            this.slo = slo;
        }

        /** Whether the latency timers publish a percentile histogram (100 us to 60 s); off by default (count, total, max, SLO buckets). */
        private boolean histogram;

        /** {@return whether the latency timers publish a percentile histogram} */
        public boolean isHistogram() {
            return histogram;
        }

        /**
         * Sets {@link #isHistogram()}.
         *
         * @param histogram the value to set
         */
        public void setHistogram(boolean histogram) {
            this.histogram = histogram;
        }

        /**
         * Latency meters: {@code micrometer} (the default: Micrometer Timers and the size DistributionSummary, which
         * SLOs, histograms and Spring Boot's {@code management.metrics.distribution.*} settings apply to), {@code lean}
         * (count, total and max without a clock read per record, exported as function timers: an opt-in for a saturated
         * client) or {@code off} (counts only, no clock read).
         */
        private String timers;

        /** {@return micrometer, lean or off, or null for the default (micrometer)} */
        public String getTimers() {
            return timers;
        }

        /**
         * Sets {@link #getTimers()}.
         *
         * @param timers the value to set
         */
        public void setTimers(String timers) {
            this.timers = timers;
        }
    }

    /** Settings of {@link SwitchboardListener} methods. */
    public static class Listener {
        /** Start listeners when the application context is refreshed. */
        private boolean autoStartup = true;

        /** How long startup waits for every listener to be ready; a listener not ready by then fails startup. */
        private Duration readyTimeout = Duration.ofSeconds(60);

        /** {@return whether listeners start when the application context is refreshed} */
        public boolean isAutoStartup() {
            return autoStartup;
        }

        /**
         * Sets {@link #isAutoStartup()}.
         *
         * @param autoStartup the value to set
         */
        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        /** {@return how long startup waits for every listener to be ready; a listener not ready by then fails startup} */
        public Duration getReadyTimeout() {
            return readyTimeout;
        }

        /**
         * Sets {@link #getReadyTimeout()}.
         *
         * @param readyTimeout the value to set
         */
        public void setReadyTimeout(Duration readyTimeout) {
            this.readyTimeout = readyTimeout;
        }
    }

    /** How POJO payloads become JSON. */
    public static class Json {
        /**
         * Use Spring Boot's Jackson 3 JsonMapper (spring.jackson.* applies) when the application has
         * one; false, or without one, uses Switchboard's own Jackson 2 mapper, as plain-Java
         * Switchboard applications do.
         */
        private boolean useBootMapper = true;

        /** {@return whether to use Spring Boot's Jackson 3 JsonMapper (spring.jackson.* applies) when the application has one; false, or without one, uses Switchboard's own Jackson 2 mapper, as plain-Java Switchboard applications do} */
        public boolean isUseBootMapper() {
            return useBootMapper;
        }

        /**
         * Sets {@link #isUseBootMapper()}.
         *
         * @param useBootMapper the value to set
         */
        public void setUseBootMapper(boolean useBootMapper) {
            this.useBootMapper = useBootMapper;
        }
    }

    /** Health indicator settings. */
    public static class Health {
        /** How long one health check waits for a broker. */
        private Duration timeout = Duration.ofSeconds(5);

        /** {@return how long one health check waits for a broker} */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * Sets {@link #getTimeout()}.
         *
         * @param timeout the value to set
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}
