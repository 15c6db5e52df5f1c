package io.switchboard.internal.routing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The publishers and subscriptions of a {@link Router} that follow its routes, and the ticker's
 * work on them: retrying primaries that were missing, and releasing publishers once every
 * subscription has drained a migration's old instance.
 */
final class RouteFollowers {

    private final List<RoutingSubscription<?>> subscriptions = new CopyOnWriteArrayList<>();
    private final List<RoutingPublisher<?>> publishers = new CopyOnWriteArrayList<>();

    void add(RoutingPublisher<?> publisher) {
        publishers.add(publisher);
    }

    void add(RoutingSubscription<?> subscription) {
        subscriptions.add(subscription);
    }

    void remove(AutoCloseable follower) {
        publishers.remove(follower);
        subscriptions.remove(follower);
    }

    /** Completes when every subscription here to {@code destination} has drained its migration. */
    CompletableFuture<Void> drained(String destination) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (RoutingSubscription<?> s : subscriptions) {
            if (s.destination().equals(destination)) {
                all.add(s.drainedStage().toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    void retryMissingPrimaries() {
        for (RoutingPublisher<?> p : publishers) {
            p.retryMissingPrimary();
        }
        for (RoutingSubscription<?> s : subscriptions) {
            s.retryMissingPrimary();
        }
    }

    void checkDrains() {
        for (RoutingSubscription<?> s : subscriptions) {
            int draining = s.draining();
            if (draining >= 0 && s.checkDrained()) {
                releasePublishers(s.destination(), draining);
            }
        }
    }

    private void releasePublishers(String destination, int instance) {
        boolean stillDraining = subscriptions.stream().anyMatch(s -> s.destination().equals(destination) && s.draining() == instance);
        if (!stillDraining) {
            for (RoutingPublisher<?> p : publishers) {
                if (p.destination().equals(destination)) {
                    p.release(instance);
                }
            }
        }
    }

    /** The destinations whose subscriptions here still drain a migration's old instance. */
    Set<String> draining() {
        Set<String> out = new HashSet<>();
        for (RoutingSubscription<?> s : subscriptions) {
            if (s.draining() >= 0) {
                out.add(s.destination());
            }
        }
        return out;
    }
}
