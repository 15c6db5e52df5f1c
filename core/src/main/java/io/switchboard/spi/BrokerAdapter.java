package io.switchboard.spi;

import java.time.Duration;

/**
 * One connection to one broker instance: creates raw publishers, raw consumers and the
 * provisioner. Thread-safe.
 *
 * <p>Ownership: everything an adapter creates is closed by core before the adapter itself;
 * {@link #close()} must nevertheless release whatever is still open. Close is idempotent.
 */
public interface BrokerAdapter extends AutoCloseable {

    /** {@return the adapter id, equal to {@link BrokerAdapterFactory#id()}; by default {@link Capabilities#brokerId()}} */
    default String id() {
        return capabilities().brokerId();
    }

    /** {@return what this broker can do; core refuses requests the capabilities rule out} */
    Capabilities capabilities();

    /**
     * Creates a publisher for one destination. The destination has already been validated
     * against {@link Capabilities#destinationNames()}.
     *
     * @param spec the destination and the publisher's guarantee and properties
     * @return the publisher, ready to send
     */
    RawPublisher createPublisher(PublisherSpec spec);

    /**
     * Creates a consumer for one destination and one consumer group (or broadcast). It delivers
     * nothing until {@link RawConsumer#start(RecordListener)}.
     *
     * @param spec the destination, group or broadcast, guarantee and properties
     * @return the consumer, not yet started
     */
    RawConsumer createConsumer(ConsumerSpec spec);

    /**
     * Creates and deletes destinations; separate from send and receive on purpose.
     *
     * @return the provisioner of this adapter's broker
     */
    Provisioner provisioner();

    /**
     * Checks, within about {@code timeout}, whether the broker is reachable: a cheap round trip
     * (Kafka: describe the cluster; RabbitMQ: the connection is open; RocketMQ: the name server
     * knows a master broker). May be called from any thread, often (health endpoints poll), and
     * must not throw: a failure is {@link BrokerHealth.Status#DOWN} with the reason, which never
     * holds a secret. The default says the adapter does not check.
     *
     * @param timeout how long the check may take, about
     * @return UP, DOWN with the reason, or UNKNOWN when the adapter does not check
     */
    default BrokerHealth health(Duration timeout) {
        return BrokerHealth.unknown("adapter '" + id() + "' does not report health");
    }

    /**
     * {@return the client settings that shape this instance's latency and throughput, with their effective values, for
     * the comparison's verdict (e.g. Kafka's {@code linger.ms}); the publish path's defaults at at-least-once} The default:
     * none.
     */
    default java.util.List<PerformanceSetting> performanceSettings() {
        return java.util.List.of();
    }

    /**
     * {@return the records each request (or batch) of this instance's client carried lately, as the client counts them
     * (e.g. kafka-clients' {@code records-per-request-avg}), or empty when unknown or nothing was sent lately} Core reads
     * it once a second, when it rolls the comparison's seconds, and weighs each reading by the messages the instance
     * published in that second, for the report's {@code records per request} and the note on a client-CPU finding
     * between instances at different batch sizes. It must return at once, off the publish path: a value the adapter's
     * own reader keeps, or a constant (1 for a client that sends every message by itself). The default: unknown.
     */
    default java.util.OptionalDouble recordsPerRequest() {
        return java.util.OptionalDouble.empty();
    }

    /**
     * {@return which threads are this instance's client: the client library's own (network, heartbeat, scheduler
     * threads) and the adapter's (poll loops, delivery pools), never another instance's and never a broker's running in
     * the same JVM} Core adds their CPU time to the instance's client cost per message (meter
     * {@code switchboard.client.cpu}, the comparison's {@code client CPU per message}); it asks once per thread. The
     * default: none, so only the sampled publish calls and core's own threads count.
     */
    default ClientThreads clientThreads() {
        return ClientThreads.NONE;
    }

    /**
     * {@return the primitives the fleet control plane needs (a durable keyed log and leader election), when this
     * broker can carry the control channel of an application's replicas} The default: none.
     */
    default java.util.Optional<ControlSupport> control() {
        return java.util.Optional.empty();
    }

    /** Releases every connection and thread. Idempotent; never throws checked exceptions. */
    @Override
    void close();
}
