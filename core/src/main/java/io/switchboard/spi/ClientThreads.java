package io.switchboard.spi;

import java.util.function.Predicate;

/**
 * Which threads of the JVM are one broker instance's client: the client library's own (network, heartbeat, scheduler
 * threads) and the adapter's. Core asks once per thread, by its id and its name when first seen, and adds the CPU time
 * of those that are to the instance's client cost ({@link BrokerAdapter#clientThreads()}).
 */
@FunctionalInterface
public interface ClientThreads {

    /** No thread. */
    ClientThreads NONE = (id, name) -> false;

    /**
     * {@return whether the thread is this instance's client}
     *
     * @param threadId the thread's id ({@link Thread#getId()})
     * @param name its name when core first saw it
     */
    boolean owns(long threadId, String name);

    /**
     * {@return the threads whose names {@code names} accepts}
     *
     * @param names accepts the instance's threads' names
     */
    static ClientThreads named(Predicate<String> names) {
        return (id, name) -> names.test(name);
    }
}
