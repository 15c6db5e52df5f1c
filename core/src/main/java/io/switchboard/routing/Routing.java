package io.switchboard.routing;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * The routes of a Switchboard's destinations, changeable while traffic flows. Obtain it from
 * {@code Switchboard.routing()}. Publishers and subscriptions follow a change without being
 * rebuilt: before the new route takes effect, subscriptions start consuming on any instance it
 * adds (and are ready), so nothing published there is stranded. Every change is logged at INFO and
 * counted ({@code switchboard.routing.changes}). Thread-safe.
 *
 * <p>Per-key order across a change: a key whose split bucket (or instance) does not change keeps
 * its order. A key that moves to another instance may be handled out of order for the messages
 * published to the new instance while the old instance still held unconsumed messages of that key
 * (at most what was in flight on the old instance at the moment of the change).
 *
 * <p>Fleet scope: with a control channel ({@code switchboard.control.instance}), {@link #update},
 * {@link #updateDefault}, {@link #promote} and a gate's steps change every replica of the
 * application; see {@link Fleet}. {@link #update} then returns once the change is stored on the
 * control channel and applied here, and throws when the channel cannot be reached.
 */
public interface Routing {

    /** {@return the names of the Switchboard's broker instances, in declaration order} */
    Set<String> instances();

    /**
     * {@return the route {@code destination} follows now: its own, or the default route}
     *
     * @param destination the destination's name
     */
    Route route(String destination);

    /** {@return the default route, for destinations without a route of their own} */
    Route defaultRoute();

    /** {@return the destinations with a route of their own} */
    Map<String, Route> routes();

    /**
     * Gives {@code destination} a new route; publishers and subscriptions follow at once.
     *
     * @param destination the destination's name
     * @param route the new route
     * @throws io.switchboard.ConfigurationException naming the value and the fix when the route
     *         names an unknown instance
     */
    void update(String destination, Route route);

    /**
     * Changes the default route; destinations without their own route follow at once.
     *
     * @param route the new default route
     */
    void updateDefault(Route route);

    /**
     * Gives {@code destination} a new route on this replica only, bypassing the fleet's control
     * channel (for tests and emergencies); the next fleet-wide change of the destination replaces
     * it. Without a control channel it is {@link #update}.
     *
     * @param destination the destination's name
     * @param route the new route
     */
    void updateLocal(String destination, Route route);

    /** {@return the replicas sharing these routes, and this replica's standing among them} */
    Fleet fleet();

    /**
     * Starts a promotion gate on {@code destination}: a ramp of weights from the gate's source to
     * its target that advances only while the target stays within the gate's bounds, and rolls back
     * at once when it does not. A gate already running on the destination is cancelled first.
     *
     * @param destination the destination's name
     * @param gate the steps and bounds
     * @return the running promotion
     */
    Promotion promote(String destination, PromotionGate gate);

    /**
     * {@return the promotion running on (or last run on) {@code destination}}
     *
     * @param destination the destination's name
     */
    Optional<Promotion> promotion(String destination);

    /**
     * For a mirror route: what the shadow saw against the primary, per key, as counts and a report.
     *
     * @param destination the destination's name
     * @return the shadow check's report so far
     */
    ShadowReport shadowReport(String destination);

    /**
     * Completes when this process's subscriptions to {@code destination} have drained the
     * instance a migration moves away from (its backlog for their group is 0 and nothing is in
     * flight) and have released it; at once when no migration is under way. With a control
     * channel, it completes only when every live replica reports the same.
     *
     * @param destination the destination's name
     * @return completes once drained
     */
    CompletionStage<Void> drained(String destination);
}
