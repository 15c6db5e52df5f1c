package io.switchboard.spi;

import java.util.Objects;

/**
 * Whether a broker instance is reachable, as its adapter sees it, with a short reason for people.
 * The reason never holds a secret (no password, no credentials in a URI).
 *
 * @param status up, down, unknown or degraded
 * @param reason what was checked or what failed, for example {@code "3 brokers in cluster abc"}
 *     or {@code "connection refused by 127.0.0.1:5672; is the server running?"}
 */
public record BrokerHealth(Status status, String reason) {

    /** The state of a broker instance. */
    public enum Status {
        /** The broker answered within the timeout. */
        UP,
        /** The broker did not answer, refused, or the client is recovering a lost connection. */
        DOWN,
        /** The adapter cannot tell (it does not check health). */
        UNKNOWN,
        /**
         * Reachable, but its consumers fall behind: a group's lag is above {@code switchboard.lag-threshold}. Set by
         * core, never by an adapter.
         */
        DEGRADED
    }

    /**
     * Validates the components.
     *
     * @param status UP, DOWN or UNKNOWN
     * @param reason what was seen, or why; never a secret
     */
    public BrokerHealth {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * Reachable, with what was seen.
     *
     * @param reason what was seen
     * @return an UP health
     */
    public static BrokerHealth up(String reason) {
        return new BrokerHealth(Status.UP, reason);
    }

    /**
     * {@return a DOWN health: not reachable, with why and, where known, what to do}
     *
     * @param reason why, and where known what to do
     */
    public static BrokerHealth down(String reason) {
        return new BrokerHealth(Status.DOWN, reason);
    }

    /**
     * {@return a DEGRADED health: reachable, with why it is degraded}
     *
     * @param reason what was seen and why it is degraded
     */
    public static BrokerHealth degraded(String reason) {
        return new BrokerHealth(Status.DEGRADED, reason);
    }

    /**
     * {@return an UNKNOWN health: the adapter does not check}
     *
     * @param reason why it does not
     */
    public static BrokerHealth unknown(String reason) {
        return new BrokerHealth(Status.UNKNOWN, reason);
    }
}
