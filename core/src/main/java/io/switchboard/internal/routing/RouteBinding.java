package io.switchboard.internal.routing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One destination's current route and the publishers and subscriptions that follow it. A change
 * first lets every participant prepare (make publishers, start and await subscriptions on the
 * instances the new route adds), then swaps the state in one volatile write, then tells them.
 */
final class RouteBinding {

    /** A publisher or subscription following the route. */
    interface Participant {
        /**
         * Checks, without side effects, that {@code next} can keep what this participant uses (a filter, delayed
         * messages); throws {@link io.switchboard.UnsupportedCapabilityException} naming the capability and the
         * instance when it cannot, and the change is refused before anything is made.
         */
        default void check(RouteState next) {
        }

        /** Makes what {@code next} needs; throws when it cannot, and the change is refused. */
        void prepare(RouteState next);

        /** The route is now {@code next} (was {@code previous}). */
        void applied(RouteState previous, RouteState next);
    }

    final String destination;
    final ShadowCheck shadowCheck;
    private volatile RouteState state;
    /**
     * Set once a keyed message was published through a split of this destination (a split by key then gives each
     * instance its own keys, which the comparison's report says). Written once, read on each split publish.
     */
    volatile boolean keyed;
    private final List<Participant> participants = new CopyOnWriteArrayList<>();

    RouteBinding(String destination, RouteState state, long shadowGraceMillis) {
        this.destination = destination;
        this.state = state;
        this.shadowCheck = new ShadowCheck(shadowGraceMillis);
    }

    RouteState state() {
        return state;
    }

    /** Adds a participant already prepared for the current state. */
    void join(Participant p) {
        participants.add(p);
    }

    void leave(Participant p) {
        participants.remove(p);
    }

    List<Participant> participants() {
        return participants;
    }

    /** Checks everyone without side effects. */
    void check(RouteState next) {
        for (Participant p : participants) {
            p.check(next);
        }
    }

    /** Checks everyone, prepares everyone, then switches; returns the previous state. Callers serialise changes. */
    RouteState change(RouteState next) {
        check(next);
        for (Participant p : participants) {
            p.prepare(next);
        }
        RouteState previous = state;
        state = next;
        for (Participant p : participants) {
            p.applied(previous, next);
        }
        return previous;
    }
}
