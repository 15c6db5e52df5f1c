package io.switchboard.spi;

/**
 * What the fleet control plane needs from the broker that carries it: a durable keyed log that
 * every replica of an application reads from its beginning, and leader election. Offered by
 * {@link BrokerAdapter#control()}; core builds the rest (route versions, the fleet's traffic
 * figures, promotion gates) on these two primitives and on an ordinary broadcast subscription.
 *
 * <p>Each adapter uses its broker's own primitive and states in its javadoc which one, and what
 * the primitive does and does not guarantee. Names are valid destination names on every broker
 * ({@code [A-Za-z0-9_-]}, at most 100 characters).
 */
public interface ControlSupport {

    /**
     * Opens the durable, keyed log {@code name}, creating on the broker what it needs (idempotent:
     * every replica opens the same log). Every record appended is read by every follower, from the
     * log's beginning; the broker may drop a record only when a newer record with the same key
     * follows it, or after a retention the adapter documents.
     *
     * @param name the log's name, the same in every replica
     * @return the log, open; the caller closes it
     */
    ControlLog openLog(String name);

    /**
     * Campaigns for the leadership of {@code name} among every process campaigning for it on this
     * broker. At most one campaigner at a time is told {@link Leadership.Listener#elected()}, as far
     * as the broker's primitive guarantees it (stated per adapter); when the leader's process dies,
     * its connection is lost or it closes its {@link Leadership}, another campaigner is elected
     * within the broker's failure-detection time.
     *
     * @param name the leadership's name, the same in every replica
     * @param listener told when this campaigner is elected and when it loses the leadership
     * @return the campaign; closing it gives up the leadership
     */
    Leadership campaign(String name, Leadership.Listener listener);
}
