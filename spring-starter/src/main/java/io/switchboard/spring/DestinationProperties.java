package io.switchboard.spring;

import io.switchboard.Delivery;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Publisher and subscriber settings of one destination, {@code switchboard.destinations.<name>.*}.
 * Unset values keep core's defaults; a {@link SwitchboardListener} attribute wins over them.
 */
public class DestinationProperties {

    /** Consumer group of listeners on this destination [default]. */
    private String group;

    /** Every listener receives every message (fan-out) instead of sharing them in a group [false]. */
    private boolean broadcast;

    /** The delivery guarantee of publishers and listeners [at-least-once]. */
    private Delivery delivery;

    /** Handler threads per listener; per-key order holds at any value [1]. */
    private Integer concurrency;

    /** Messages fetched and not yet acknowledged, per listener [256]. */
    private Integer maxInFlight;

    /** Handler retries before a message is dead-lettered. */
    @NestedConfigurationProperty
    private final RetryProperties retry = new RetryProperties();

    /** The dead-letter destination [the destination's name + .dlq, or the broker's equivalent]. */
    private String deadLetter;

    /** Broker-side filter expression (RocketMQ tags); needs a broker with filtering. */
    private String filter;

    /** How long closing a listener waits for handlers in flight [30s]. */
    private Duration drainTimeout;

    /** The codec: json, string or bytes [by payload type: String is string, byte[] is bytes, anything else json]. */
    private String codec;

    /** Broker properties of this destination's publishers and listeners only (for example kafka.linger.ms). */
    private Map<String, String> properties = new LinkedHashMap<>();

    /** Resilience4j policies on publishing to this destination; override the instance's. */
    @NestedConfigurationProperty
    private final ResilienceProperties resilience = new ResilienceProperties();

    public String getGroup() {
        return group;
    }

    public void setGroup(String group) {
        this.group = group;
    }

    public boolean isBroadcast() {
        return broadcast;
    }

    public void setBroadcast(boolean broadcast) {
        this.broadcast = broadcast;
    }

    public Delivery getDelivery() {
        return delivery;
    }

    public void setDelivery(Delivery delivery) {
        this.delivery = delivery;
    }

    public Integer getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(Integer concurrency) {
        this.concurrency = concurrency;
    }

    public Integer getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(Integer maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public RetryProperties getRetry() {
        return retry;
    }

    public String getDeadLetter() {
        return deadLetter;
    }

    public void setDeadLetter(String deadLetter) {
        this.deadLetter = deadLetter;
    }

    public String getFilter() {
        return filter;
    }

    public void setFilter(String filter) {
        this.filter = filter;
    }

    public Duration getDrainTimeout() {
        return drainTimeout;
    }

    public void setDrainTimeout(Duration drainTimeout) {
        this.drainTimeout = drainTimeout;
    }

    public String getCodec() {
        return codec;
    }

    public void setCodec(String codec) {
        this.codec = codec;
    }

    public Map<String, String> getProperties() {
        return properties;
    }

    public void setProperties(Map<String, String> properties) {
        this.properties = properties;
    }

    public ResilienceProperties getResilience() {
        return resilience;
    }
}
