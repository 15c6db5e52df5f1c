package io.switchboard.routing;

import java.time.Instant;
import java.util.List;

/**
 * The replicas of an application that share their routes through a control channel (see
 * {@link Routing}), as this replica sees them. Obtain it from {@code Switchboard.routing().fleet()}.
 *
 * <p>With {@code switchboard.control.*} configured, every route change made on any replica
 * ({@link Routing#update}, {@link Routing#updateDefault}, a promotion gate's step, the actuator) is
 * a versioned record on a durable log on the control instance's broker, applied by every live
 * replica; a replica that starts later starts from the log, not from its own configuration. Without
 * it, {@link #status()} is {@link Status#LOCAL} and routes are this process's alone.
 */
public interface Fleet {

    /** Where the fleet's route state stands for this replica. */
    enum Status {
        /** No control channel configured: routes are this process's alone. */
        LOCAL,
        /** Following the control channel: routes are the fleet's. */
        UP,
        /**
         * The control channel is unreachable: this replica keeps its last routes, cannot change
         * the fleet's, and catches up when the channel returns.
         */
        DEGRADED
    }

    /**
     * One replica, as its last heartbeat described it.
     *
     * @param id the replica id ({@code switchboard.control.replica})
     * @param routeVersion the sum of the versions of every route record it applied (grows with each change)
     * @param inStep true when it has applied as many route changes as the newest replica (and this one's log) knows
     * @param leader true when it drives the fleet's promotion gates
     * @param status its own status
     * @param lastSeen when its last heartbeat was sent
     */
    record Replica(String id, long routeVersion, boolean inStep, boolean leader, Status status, Instant lastSeen) {}

    /** {@return {@link Status#LOCAL}, {@link Status#UP} or {@link Status#DEGRADED}} */
    Status status();

    /** {@return why DEGRADED (names the control instance), or a short description; never null} */
    String reason();

    /** {@return the fleet name ({@code switchboard.control.fleet}), or null when LOCAL} */
    String fleetName();

    /** {@return this replica's id, or null when LOCAL} */
    String replica();

    /** {@return the instance whose broker carries the control channel, or null when LOCAL} */
    String controlInstance();

    /** {@return the sum of the versions of the route records this replica applied (0 on configuration alone)} */
    long routeVersion();

    /** {@return true when this replica drives the fleet's promotion gates} */
    boolean leader();

    /** {@return every replica heard from within {@code switchboard.control.replica-timeout}, this one first} */
    List<Replica> replicas();
}
