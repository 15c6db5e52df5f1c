package io.switchboard.spi;

import io.switchboard.StartPosition;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * What a broker can do. Core reads it to refuse, when a publisher or subscription is built, what
 * the broker cannot give, and to provide in core what the broker lacks (for example exactly-once
 * processing by deduplication). Immutable; build with {@link #builder(String)}.
 */
public final class Capabilities {

    /** The partitions of an auto-provisioned destination unless the adapter sets its own default. */
    public static final int DEFAULT_PARTITIONS = 4;

    private final String brokerId;
    private final boolean nativeExactlyOnce;
    private final boolean orderingPerKey;
    private final boolean delayedDelivery;
    private final boolean broadcast;
    private final boolean filtering;
    private final boolean publishTimestamp;
    private final int maxMessageSize;
    private final int defaultPartitions;
    private final DestinationNameRule destinationNames;
    private final UnaryOperator<String> deadLetterNaming;
    private final Set<StartPosition.Kind> groupStarts;
    private final Set<StartPosition.Kind> broadcastStarts;
    private final boolean replay;
    private final String startPositionLimits;

    private Capabilities(Builder b) {
        this.brokerId = b.brokerId;
        this.nativeExactlyOnce = b.nativeExactlyOnce;
        this.orderingPerKey = b.orderingPerKey;
        this.delayedDelivery = b.delayedDelivery;
        this.broadcast = b.broadcast;
        this.filtering = b.filtering;
        this.publishTimestamp = b.publishTimestamp;
        this.maxMessageSize = b.maxMessageSize;
        this.defaultPartitions = b.defaultPartitions;
        this.destinationNames = b.destinationNames;
        this.deadLetterNaming = b.deadLetterNaming;
        this.groupStarts = b.groupStarts.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(b.groupStarts));
        this.broadcastStarts = b.broadcastStarts.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(b.broadcastStarts));
        this.replay = b.replay;
        this.startPositionLimits = b.startPositionLimits;
    }

    /**
     * Starts a builder for the given adapter id.
     *
     * @param brokerId the adapter id the capabilities belong to
     * @return a builder with every capability off and the defaults of the sizes
     */
    public static Builder builder(String brokerId) {
        return new Builder(brokerId);
    }

    /** {@return the adapter id these capabilities belong to} */
    public String brokerId() {
        return brokerId;
    }

    /**
     * {@return true when the broker itself gives exactly-once (transactions); false when core emulates it with
     * at-least-once delivery plus deduplication on the message id}
     */
    public boolean nativeExactlyOnce() {
        return nativeExactlyOnce;
    }

    /** {@return true when records with the same key are delivered in publish order} */
    public boolean orderingPerKey() {
        return orderingPerKey;
    }

    /** {@return true when a record can be held back until a given time} */
    public boolean delayedDelivery() {
        return delayedDelivery;
    }

    /** {@return true when every subscriber can receive every record (broadcast subscriptions)} */
    public boolean broadcast() {
        return broadcast;
    }

    /** {@return true when a subscription can filter records broker-side ({@link ConsumerSpec#filter()})} */
    public boolean filtering() {
        return filtering;
    }

    /**
     * {@return true when every record the adapter writes gets the time it was sent, in epoch milliseconds, from the
     * broker's client and hands it back as {@link InboundRecord#brokerTimestamp()} (Kafka's {@code CreateTime})}
     * Then the default envelope leaves {@code ce_time} out of a message published without an explicit timestamp,
     * and consumers read its time, to the millisecond, from the broker's.
     */
    public boolean publishTimestamp() {
        return publishTimestamp;
    }

    /** {@return the largest encoded payload plus headers the broker accepts, in bytes} */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /**
     * {@return partitions of a destination core auto-provisions when {@code switchboard.partitions} is not set:
     * {@value #DEFAULT_PARTITIONS} unless the adapter chooses otherwise (RabbitMQ: 1, so that any routing key
     * reaches a consumer group)}
     */
    public int defaultPartitions() {
        return defaultPartitions;
    }

    /** {@return the broker's rule for destination names} */
    public DestinationNameRule destinationNames() {
        return destinationNames;
    }

    /**
     * {@return the default dead-letter destination for a destination ({@code <destination>.dlq} unless the broker
     * forbids dots)}
     *
     * @param destination the destination's name
     */
    public String deadLetterDestination(String destination) {
        return deadLetterNaming.apply(destination);
    }

    /**
     * {@return the kinds of {@link StartPosition} a subscription may ask for ({@link ConsumerSpec#startFrom()}); core
     * refuses the others when the subscription is built, with {@link #startPositionLimits()} as the reason}
     * A subscription that asks for none starts where the broker starts a new group (or broadcast subscriber) by default.
     *
     * @param broadcast true for a broadcast subscription, false for a consumer group's
     */
    public Set<StartPosition.Kind> startPositions(boolean broadcast) {
        return broadcast ? broadcastStarts : groupStarts;
    }

    /**
     * {@return true when the broker keeps records for groups that do not exist yet, so that a new group starting at
     * {@link StartPosition#earliest()} reads records published before it first subscribed (a log: Kafka, RocketMQ)}
     * False when a group's records are kept only from the moment its queue exists (RabbitMQ classic and quorum queues).
     */
    public boolean replay() {
        return replay;
    }

    /**
     * {@return why the start positions missing from {@link #startPositions(boolean)} cannot be had on this broker and
     * what to do instead; empty when every kind is supported}
     */
    public String startPositionLimits() {
        return startPositionLimits;
    }

    @Override
    public String toString() {
        return "Capabilities[" + brokerId + ": exactlyOnce=" + (nativeExactlyOnce ? "native" : "emulated")
                + ", orderingPerKey=" + orderingPerKey + ", delayedDelivery=" + delayedDelivery
                + ", broadcast=" + broadcast + ", filtering=" + filtering + ", publishTimestamp=" + publishTimestamp
                + ", maxMessageSize=" + maxMessageSize + ", groupStarts=" + groupStarts + ", broadcastStarts="
                + broadcastStarts + ", replay=" + replay
                + ", defaultPartitions=" + defaultPartitions + "]";
    }

    /** Builds {@link Capabilities}; every feature is off unless set. */
    public static final class Builder {
        private final String brokerId;
        private boolean nativeExactlyOnce;
        private boolean orderingPerKey;
        private boolean delayedDelivery;
        private boolean broadcast;
        private boolean filtering;
        private boolean publishTimestamp;
        private int maxMessageSize = 1024 * 1024;
        private int defaultPartitions = DEFAULT_PARTITIONS;
        private DestinationNameRule destinationNames = name -> java.util.Optional.empty();
        private UnaryOperator<String> deadLetterNaming = destination -> destination + ".dlq";
        private Set<StartPosition.Kind> groupStarts = Set.of();
        private Set<StartPosition.Kind> broadcastStarts = Set.of();
        private boolean replay;
        private String startPositionLimits = "the adapter declares no start positions; subscribe without startFrom";

        private Builder(String brokerId) {
            this.brokerId = Objects.requireNonNull(brokerId, "brokerId");
        }

        /**
         * See {@link Capabilities#nativeExactlyOnce()}.
         *
         * @param value true when the broker has it
         * @return this builder
         */
        public Builder nativeExactlyOnce(boolean value) {
            this.nativeExactlyOnce = value;
            return this;
        }

        /**
         * See {@link Capabilities#orderingPerKey()}.
         *
         * @param value true when the broker has it
         * @return this builder
         */
        public Builder orderingPerKey(boolean value) {
            this.orderingPerKey = value;
            return this;
        }

        /**
         * See {@link Capabilities#delayedDelivery()}.
         *
         * @param value true when the broker has it
         * @return this builder
         */
        public Builder delayedDelivery(boolean value) {
            this.delayedDelivery = value;
            return this;
        }

        /**
         * See {@link Capabilities#broadcast()}.
         *
         * @param value true when the broker has it
         * @return this builder
         */
        public Builder broadcast(boolean value) {
            this.broadcast = value;
            return this;
        }

        /**
         * See {@link Capabilities#filtering()}.
         *
         * @param value true when the broker has it
         * @return this builder
         */
        public Builder filtering(boolean value) {
            this.filtering = value;
            return this;
        }

        /**
         * See {@link Capabilities#publishTimestamp()}.
         *
         * @param value true when the broker's records carry their send time in milliseconds
         * @return this builder
         */
        public Builder publishTimestamp(boolean value) {
            this.publishTimestamp = value;
            return this;
        }

        /**
         * See {@link Capabilities#maxMessageSize()}; must be positive.
         *
         * @param bytes the largest encoded payload plus headers, in bytes
         * @return this builder
         */
        public Builder maxMessageSize(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxMessageSize must be positive but was " + bytes);
            }
            this.maxMessageSize = bytes;
            return this;
        }

        /**
         * See {@link Capabilities#defaultPartitions()}; at least 1.
         *
         * @param partitions the partitions of a destination made without a count
         * @return this builder
         */
        public Builder defaultPartitions(int partitions) {
            if (partitions < 1) {
                throw new IllegalArgumentException("defaultPartitions must be at least 1 but was " + partitions);
            }
            this.defaultPartitions = partitions;
            return this;
        }

        /**
         * See {@link Capabilities#destinationNames()}.
         *
         * @param rule the broker's rule for destination names
         * @return this builder
         */
        public Builder destinationNames(DestinationNameRule rule) {
            this.destinationNames = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /**
         * How the default dead-letter destination is named from a destination.
         *
         * @param naming turns a destination's name into its dead-letter destination's
         * @return this builder
         */
        public Builder deadLetterNaming(UnaryOperator<String> naming) {
            this.deadLetterNaming = Objects.requireNonNull(naming, "naming");
            return this;
        }

        /**
         * See {@link Capabilities#startPositions(boolean)} and {@link Capabilities#startPositionLimits()}.
         *
         * @param group the kinds a consumer group's subscription may ask for
         * @param broadcast the kinds a broadcast subscription may ask for
         * @param limits why the other kinds cannot be had and what to do instead (empty when none is missing)
         * @return this builder
         */
        public Builder startPositions(Set<StartPosition.Kind> group, Set<StartPosition.Kind> broadcast, String limits) {
            this.groupStarts = Set.copyOf(group);
            this.broadcastStarts = Set.copyOf(broadcast);
            this.startPositionLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * See {@link Capabilities#replay()}.
         *
         * @param value true when a new group can read records published before it subscribed
         * @return this builder
         */
        public Builder replay(boolean value) {
            this.replay = value;
            return this;
        }

        /**
         * Builds the immutable capabilities.
         *
         * @return the capabilities
         */
        public Capabilities build() {
            return new Capabilities(this);
        }
    }
}
