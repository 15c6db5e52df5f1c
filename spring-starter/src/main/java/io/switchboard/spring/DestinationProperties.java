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

    /** Tag filter expression ("TagA || TagB"): broker-side on RocketMQ (tags) and RabbitMQ (bindings), in the client on Kafka and memory. */
    private String filter;

    /** How long closing a listener waits for handlers in flight [30s]. */
    private Duration drainTimeout;

    /** How long a listener's returned CompletionStage may take before the attempt counts as failed [5m]. */
    private Duration handlerTimeout;

    /**
     * Where a listener's group starts when it has no committed position yet (a new group, a broadcast listener):
     * earliest, latest, offset:<n> or time:<ISO-8601 instant>; a group with committed positions resumes from them
     * [earliest for a group, latest for broadcast].
     */
    private String startFrom;

    /** The most messages a batch listener gets at once [100]. */
    private Integer batchSize;

    /** How long a batch listener's batch waits for more messages once it holds one [50ms]. */
    private Duration batchWait;

    /** Where a Requester of this destination awaits its replies [<destination>-replies]. */
    private String replyTo;

    /** How long a Requester of this destination awaits a reply [5s]. */
    private Duration replyTimeout;

    /** The codec: json, string or bytes [by payload type: String is string, byte[] is bytes, anything else json]. */
    private String codec;

    /**
     * The header carrying each JSON message's type id, as Spring's JsonSerializer writes it (__TypeId__), or ce_type
     * for the CloudEvents type: publishers write it, class listeners dispatch on it [none; class listeners: __TypeId__].
     */
    private String typeHeader;

    /** Broker properties of this destination's publishers and listeners only (for example kafka.linger.ms). */
    private Map<String, String> properties = new LinkedHashMap<>();

    /** Resilience4j policies on publishing to this destination; override the instance's. */
    @NestedConfigurationProperty
    private final ResilienceProperties resilience = new ResilienceProperties();

    /** {@return consumer group of listeners on this destination [default]} */
    public String getGroup() {
        return group;
    }

    /**
     * Sets {@link #getGroup()}.
     *
     * @param group the value to set
     */
    public void setGroup(String group) {
        this.group = group;
    }

    /** {@return whether every listener receives every message (fan-out) instead of sharing them in a group [false]} */
    public boolean isBroadcast() {
        return broadcast;
    }

    /**
     * Sets {@link #isBroadcast()}.
     *
     * @param broadcast the value to set
     */
    public void setBroadcast(boolean broadcast) {
        this.broadcast = broadcast;
    }

    /** {@return the delivery guarantee of publishers and listeners [at-least-once]} */
    public Delivery getDelivery() {
        return delivery;
    }

    /**
     * Sets {@link #getDelivery()}.
     *
     * @param delivery the value to set
     */
    public void setDelivery(Delivery delivery) {
        this.delivery = delivery;
    }

    /** {@return handler threads per listener; per-key order holds at any value [1]} */
    public Integer getConcurrency() {
        return concurrency;
    }

    /**
     * Sets {@link #getConcurrency()}.
     *
     * @param concurrency the value to set
     */
    public void setConcurrency(Integer concurrency) {
        this.concurrency = concurrency;
    }

    /** {@return messages fetched and not yet acknowledged, per listener [256]} */
    public Integer getMaxInFlight() {
        return maxInFlight;
    }

    /**
     * Sets {@link #getMaxInFlight()}.
     *
     * @param maxInFlight the value to set
     */
    public void setMaxInFlight(Integer maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    /** {@return handler retries before a message is dead-lettered} */
    public RetryProperties getRetry() {
        return retry;
    }

    /** {@return the dead-letter destination [the destination's name + .dlq, or the broker's equivalent]} */
    public String getDeadLetter() {
        return deadLetter;
    }

    /**
     * Sets {@link #getDeadLetter()}.
     *
     * @param deadLetter the value to set
     */
    public void setDeadLetter(String deadLetter) {
        this.deadLetter = deadLetter;
    }

    /** {@return the tag filter expression: broker-side on RocketMQ and RabbitMQ, in the client on Kafka and memory} */
    public String getFilter() {
        return filter;
    }

    /**
     * Sets {@link #getFilter()}.
     *
     * @param filter the value to set
     */
    public void setFilter(String filter) {
        this.filter = filter;
    }

    /** {@return how long closing a listener waits for handlers in flight [30s]} */
    public Duration getDrainTimeout() {
        return drainTimeout;
    }

    /**
     * Sets {@link #getDrainTimeout()}.
     *
     * @param drainTimeout the value to set
     */
    public void setDrainTimeout(Duration drainTimeout) {
        this.drainTimeout = drainTimeout;
    }

    /** {@return how long a listener's returned CompletionStage may take before the attempt counts as failed [5m]} */
    public Duration getHandlerTimeout() {
        return handlerTimeout;
    }

    /**
     * Sets {@link #getHandlerTimeout()}.
     *
     * @param handlerTimeout the value to set
     */
    public void setHandlerTimeout(Duration handlerTimeout) {
        this.handlerTimeout = handlerTimeout;
    }

    /**
     * {@return where a listener's group without committed positions starts ({@code earliest}, {@code latest},
     * {@code offset:<n>}, {@code time:<ISO-8601 instant>}; see {@link io.switchboard.StartPosition#parse(String)}), or
     * null for the broker's default}
     */
    public String getStartFrom() {
        return startFrom;
    }

    /**
     * Sets {@link #getStartFrom()}.
     *
     * @param startFrom the value to set
     */
    public void setStartFrom(String startFrom) {
        this.startFrom = startFrom;
    }

    /** {@return the most messages a batch listener gets at once, or null for 100} */
    public Integer getBatchSize() {
        return batchSize;
    }

    /**
     * Sets {@link #getBatchSize()}.
     *
     * @param batchSize the value to set
     */
    public void setBatchSize(Integer batchSize) {
        this.batchSize = batchSize;
    }

    /** {@return how long a batch listener's batch waits for more messages once it holds one, or null for 50 ms} */
    public Duration getBatchWait() {
        return batchWait;
    }

    /**
     * Sets {@link #getBatchWait()}.
     *
     * @param batchWait the value to set
     */
    public void setBatchWait(Duration batchWait) {
        this.batchWait = batchWait;
    }

    /** {@return where a Requester of this destination awaits its replies, or null for {@code <destination>-replies}} */
    public String getReplyTo() {
        return replyTo;
    }

    /**
     * Sets {@link #getReplyTo()}.
     *
     * @param replyTo the value to set
     */
    public void setReplyTo(String replyTo) {
        this.replyTo = replyTo;
    }

    /** {@return how long a Requester of this destination awaits a reply, or null for 5 s} */
    public Duration getReplyTimeout() {
        return replyTimeout;
    }

    /**
     * Sets {@link #getReplyTimeout()}.
     *
     * @param replyTimeout the value to set
     */
    public void setReplyTimeout(Duration replyTimeout) {
        this.replyTimeout = replyTimeout;
    }

    /** {@return the header carrying each JSON message's type id, or null for none} */
    public String getTypeHeader() {
        return typeHeader;
    }

    /**
     * Sets the header carrying each JSON message's type id ({@code __TypeId__}, or {@code ce_type}).
     *
     * @param typeHeader the value to set
     */
    public void setTypeHeader(String typeHeader) {
        this.typeHeader = typeHeader;
    }

    /** {@return the codec: json, string or bytes [by payload type: String is string, byte[] is bytes, anything else json]} */
    public String getCodec() {
        return codec;
    }

    /**
     * Sets {@link #getCodec()}.
     *
     * @param codec the value to set
     */
    public void setCodec(String codec) {
        this.codec = codec;
    }

    /** {@return broker properties of this destination's publishers and listeners only (for example kafka.linger.ms)} */
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

    /** {@return resilience4j policies on publishing to this destination; override the instance's} */
    public ResilienceProperties getResilience() {
        return resilience;
    }
}
