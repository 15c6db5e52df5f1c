package io.switchboard.spi;

/** The names of the timeline's event kinds (see {@link ClientEvents}); also the {@code kind} tag of their counter. */
public final class EventKinds {

    /**
     * A consumer group rebalances (Kafka: from a revocation until the group handed the partitions out again; RocketMQ's
     * queue reallocation): a span.
     */
    public static final String REBALANCE = "rebalance";
    /** The partitions or queues a consumer holds changed: an instant, detail lists what was added and removed. */
    public static final String ASSIGNMENT = "assignment";
    /** The client lost its connection: a span that ends when it is recovered. */
    public static final String CONNECTION_LOST = "connection-lost";
    /** The broker cancelled a consumer (RabbitMQ's basic.cancel, a deleted queue) or the client recovered it. */
    public static final String CONSUMER_CANCELLED = "consumer-cancelled";
    /** A cancelled or lost consumer consumes again. */
    public static final String CONSUMER_RECOVERED = "consumer-recovered";
    /** The leader of a partition or queue the client uses moved. */
    public static final String LEADER_CHANGE = "leader-change";
    /** A publisher waited for room (send window, buffer, flow control): a span. */
    public static final String BACK_PRESSURE = "back-pressure";
    /** A publish was retried after a failure. */
    public static final String PUBLISH_RETRY = "publish-retry";
    /** A replica joined the fleet. */
    public static final String REPLICA_JOINED = "replica-joined";
    /** A replica left the fleet. */
    public static final String REPLICA_LEFT = "replica-left";
    /** A destination's route changed. */
    public static final String ROUTE_CHANGED = "route-changed";
    /** A circuit breaker changed state. */
    public static final String CIRCUIT_BREAKER = "circuit-breaker";
    /** The JVM paused for garbage collection longer than the threshold: a span. */
    public static final String GC_PAUSE = "gc-pause";

    private EventKinds() {
    }
}
