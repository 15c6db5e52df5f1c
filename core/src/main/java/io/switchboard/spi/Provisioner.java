package io.switchboard.spi;

/**
 * Creates and deletes destinations. Kept apart from send and receive so that applications
 * without administrative rights can still publish and consume. Thread-safe; every method is
 * idempotent and blocks until the broker confirms (it is never called on a delivery path).
 */
public interface Provisioner {

    /**
     * Makes sure the destination exists. An existing destination is left as it is (its partition
     * count is not changed).
     *
     * @param spec the destination's name, partitions and settings
     * @throws io.switchboard.SwitchboardException when the broker refuses, naming the destination
     */
    void ensureDestination(DestinationSpec spec);

    /**
     * Makes sure every destination exists, as {@link #ensureDestination} does for each. An adapter whose broker can
     * create several at once (one admin round trip) overrides it; the default makes them one by one.
     *
     * @param specs the destinations, in no particular order
     * @throws io.switchboard.SwitchboardException when the broker refuses one, naming it
     */
    default void ensureDestinations(java.util.List<DestinationSpec> specs) {
        specs.forEach(this::ensureDestination);
    }

    /**
     * Creates the destinations as {@link #ensureDestinations} does, but may return before the broker takes writes on
     * them; the returned wait returns once it does, and throws what {@link #ensureDestinations} would have. Core's
     * provisioning round starts its subscriptions between the two (so that a consumer's group join and offset lookups
     * overlap the broker's work of bringing new partitions online) and completes its publishers only after the wait. A
     * broker whose destinations take writes as soon as they exist keeps the default: everything is done at once and the
     * wait returns at once.
     *
     * @param specs the destinations, in no particular order
     * @return waits (on the calling thread, bounded by the adapter's admin time-out) until the destinations take writes
     * @throws io.switchboard.SwitchboardException when the broker refuses one, naming it
     */
    default Runnable createDestinations(java.util.List<DestinationSpec> specs) {
        ensureDestinations(specs);
        return () -> { };
    }

    /**
     * Notes that a consumer of {@code spec} will be created and started soon: a subscription queued for the instance's
     * next provisioning round. An adapter that makes something for each consumer group (a retry topic, for example)
     * can then make a whole burst's in one batch when the first of them starts, instead of one at a time. Called only
     * while auto-provisioning is on; never blocks; the default does nothing.
     *
     * @param spec the consumer's destination, group and settings
     */
    default void consumerExpected(ConsumerSpec spec) {
    }

    /**
     * Deletes the destination and what the adapter created for it (queues, groups) if present.
     *
     * @param name the destination's name
     */
    void deleteDestination(String name);
}
