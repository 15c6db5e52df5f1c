package io.switchboard.internal.routing;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Subscription;
import io.switchboard.SubscriptionException;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.internal.DefaultSubscription;
import io.switchboard.internal.Instance;
import io.switchboard.internal.SubscriptionBase;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.internal.idempotency.ClaimWait;
import io.switchboard.routing.RoutingMode;
import io.switchboard.spi.IdempotencyStore;
import io.switchboard.spi.IdempotencyStore.Claim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscription of a multi-instance Switchboard: one {@link DefaultSubscription} per instance
 * the destination's route can send to, all calling the same handler through a thin wrapper that
 * reads the route once per message: in mirror mode it feeds the shadow check and, when the shadow
 * only observes, acknowledges shadow messages without calling the handler; in failover and
 * migrate modes it deduplicates by message id across instances.
 */
final class RoutingSubscription<T> extends SubscriptionBase implements RouteBinding.Participant {

    private static final Logger log = LoggerFactory.getLogger(RoutingSubscription.class);
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Router router;
    private final RouteBinding binding;
    private final SubscriptionRequest<T> request;
    private final MessageHandler<T> handler;
    private final List<Instance> instances;
    private final DefaultSubscription<T>[] subscriptions;
    private final IdempotencyStore store;
    private final String scope;
    private final long busyWaitNanos;
    private volatile Drain drain;
    private final Retrier primaryRetry = new Retrier();

    /** A migration source being drained. */
    private static final class Drain {
        final int instance;
        final long sinceNanos = System.nanoTime();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        int emptyChecks;

        Drain(int instance) {
            this.instance = instance;
        }
    }

    @SuppressWarnings("unchecked")
    RoutingSubscription(Router router, RouteBinding binding, SubscriptionRequest<T> request, MessageHandler<T> handler,
            Consumer<AutoCloseable> onClose) {
        super(request.destination(), request.effectiveGroup(), onClose);
        this.router = router;
        this.binding = binding;
        this.request = request;
        this.handler = handler;
        this.instances = router.instanceList();
        this.subscriptions = new DefaultSubscription[instances.size()];
        this.store = request.idempotencyStore() != null ? request.idempotencyStore() : instances.get(0).shared().idempotencyStore();
        this.scope = "route:" + request.destination() + "/" + request.effectiveGroup();
        this.busyWaitNanos = ClaimWait.bound(request.properties(), instances.get(0).config()).toNanos();
    }

    /** Checks the request on every instance the route reads, then starts them. */
    void start() {
        RouteState s = binding.state();
        RouteChecks.keepsOrder(s, request, instances);
        for (int i : s.reads) {
            instances.get(i).check(request);
        }
        List<CompletableFuture<Void>> started = new ArrayList<>();
        try {
            for (int i : s.reads) {
                if (s.mode == RoutingMode.FAILOVER && i == s.primary) {
                    tryPrimary(i); // a failover route reads its secondary alone while the primary is down
                } else {
                    started.add(startOn(i).ready().toCompletableFuture());
                }
            }
        } catch (RuntimeException e) {
            closeAll();
            throw e;
        }
        CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            if (e == null) {
                ready.complete(null);
            } else {
                ready.completeExceptionally(e);
            }
        });
        if (s.mode == RoutingMode.MIGRATE) {
            drain = new Drain(s.secondary);
        }
    }

    /**
     * Starts on the failover primary; when its broker cannot be reached, logs it and leaves it to
     * {@link #retryMissingPrimary}. Returns true when it started.
     */
    private boolean tryPrimary(int i) {
        primaryRetry.attempted();
        DefaultSubscription<T> sub;
        try {
            sub = startOn(i);
        } catch (RuntimeException e) {
            log.warn("Failover route of '{}' (group '{}'): primary '{}' is not available ({}); reading the secondary until it is",
                    request.destination(), request.group(), instances.get(i).name(), e.getMessage());
            return false;
        }
        sub.ready().whenComplete((v, error) -> {
            if (error != null) {
                log.warn("Failover route of '{}': the subscription on primary '{}' did not start ({}); trying again later",
                        request.destination(), instances.get(i).name(), error.getMessage());
                synchronized (this) {
                    if (subscriptions[i] == sub) {
                        subscriptions[i] = null;
                    }
                }
                sub.close();
            }
        });
        return true;
    }

    /** On the routing ticker: tries again, at most every 5 s and off the ticker thread, to read a missing failover primary. */
    void retryMissingPrimary() {
        RouteState s = binding.state();
        if (closed.get() || s.mode != RoutingMode.FAILOVER || subscriptions[s.primary] != null) {
            return;
        }
        primaryRetry.maybeRun(() -> {
            if (!closed.get() && tryPrimary(s.primary)) {
                log.info("Failover route of '{}' (group '{}'): reading primary '{}' again", request.destination(),
                        request.group(), instances.get(s.primary).name());
            }
        });
    }

    private synchronized DefaultSubscription<T> startOn(int i) {
        DefaultSubscription<T> existing = subscriptions[i];
        if (existing != null) {
            return existing;
        }
        DefaultSubscription<T> sub = instances.get(i).subscribe(request, new RoutedHandler(i), c -> { });
        subscriptions[i] = sub;
        sub.terminated().whenComplete((v, error) -> {
            if (error != null && !closed.get()) {
                terminated.completeExceptionally(error);
            }
        });
        return sub;
    }

    // ---- following the route ----

    @Override
    public void check(RouteState next) {
        RouteChecks.keepsOrder(next, request, instances);
        for (int i : next.reads) {
            if (subscriptions[i] == null) {
                try {
                    instances.get(i).check(request);
                } catch (UnsupportedCapabilityException e) {
                    throw new UnsupportedCapabilityException("Route " + next.route + " of '" + request.destination()
                            + "' is refused before any message goes there: a live subscription (group '" + request.group()
                            + "') needs what broker instance '" + instances.get(i).name() + "' lacks. " + e.getMessage(), e);
                }
            }
        }
    }

    @Override
    public void prepare(RouteState next) {
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        for (int i : next.reads) {
            if (subscriptions[i] == null) {
                instances.get(i).check(request);
                if (next.mode == RoutingMode.FAILOVER && i == next.primary) {
                    tryPrimary(i);
                } else {
                    waiting.add(startOn(i).ready().toCompletableFuture());
                }
            }
        }
        Duration timeout = router.readyTimeout();
        try {
            CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SubscriptionException("Subscription to '" + request.destination() + "' (group '" + request.group()
                    + "') was not ready within " + timeout + " on the instances route " + next.route
                    + " adds; the route was not changed. Check those brokers, or raise switchboard.routing.ready-timeout", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubscriptionException("Interrupted while starting '" + request.destination() + "' on route " + next.route, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new SubscriptionException("Subscription to '" + request.destination() + "' could not start on the instances"
                    + " route " + next.route + " adds: " + e.getCause().getMessage() + "; the route was not changed", e.getCause());
        }
    }

    @Override
    public void applied(RouteState previous, RouteState next) {
        Drain d = drain;
        if (d != null && (next.mode != RoutingMode.MIGRATE || next.secondary != d.instance)) {
            drain = null;
            d.done.completeExceptionally(new CancellationException("Migration of '" + request.destination() + "' away from '"
                    + instances.get(d.instance).name() + "' was replaced by route " + next.route + " before it drained"));
        }
        if (next.mode == RoutingMode.MIGRATE && drain == null && subscriptions[next.secondary] != null) {
            drain = new Drain(next.secondary);
        }
    }

    /**
     * One drain check, on the routing ticker: the migration source has nothing in flight here, and
     * its backlog for the group is 0 (or, where the broker cannot tell, nothing arrived for 5 s),
     * on two checks in a row at least 2 s after the migration began. Then it is released.
     */
    boolean checkDrained() {
        Drain d = drain;
        if (d == null || d.done.isDone()) {
            return false;
        }
        DefaultSubscription<T> sub = subscriptions[d.instance];
        if (sub == null) {
            drain = null;
            return d.done.complete(null);
        }
        long now = System.nanoTime();
        OptionalLong backlog = sub.backlog();
        boolean empty = now - d.sinceNanos >= SETTLE_NANOS && sub.inFlight() == 0
                && (backlog.isPresent() ? backlog.getAsLong() == 0 : now - sub.lastRecordNanos() >= QUIET_NANOS);
        d.emptyChecks = empty ? d.emptyChecks + 1 : 0;
        if (d.emptyChecks < 2) {
            return false;
        }
        synchronized (this) {
            subscriptions[d.instance] = null;
        }
        log.info("Subscription to '{}' (group '{}') drained broker instance '{}' (backlog {}); releasing it",
                request.destination(), request.group(), instances.get(d.instance).name(),
                backlog.isPresent() ? backlog.getAsLong() : "unknown, quiet for 5 s");
        sub.close();
        drain = null;
        return d.done.complete(null);
    }

    /** The instance being drained, or -1. */
    int draining() {
        Drain d = drain;
        return d == null ? -1 : d.instance;
    }

    /** Completes when the migration source is drained; at once when nothing is migrating. */
    CompletionStage<Void> drainedStage() {
        Drain d = drain;
        return d == null ? CompletableFuture.completedFuture(null) : d.done;
    }

    /** Calls the application's handler for one instance's records, as the route says. */
    private final class RoutedHandler implements MessageHandler<T> {
        private final int instance;

        RoutedHandler(int instance) {
            this.instance = instance;
        }

        @Override
        public void handle(Message<T> message, DeliveryContext context) throws Exception {
            RouteState s = binding.state();
            if (s.mode == RoutingMode.MIRROR) {
                if (instance == s.secondary) {
                    binding.shadowCheck.shadow(message.key(), message.id());
                    if (s.observeOnly) {
                        return;
                    }
                } else if (instance == s.primary) {
                    binding.shadowCheck.primary(message.key(), message.id());
                }
            }
            if (!s.dedup) {
                handler.handle(message, context);
                return;
            }
            Claim claim = ClaimWait.claim(store, scope, message.id(), busyWaitNanos, closed::get);
            if (claim == Claim.DONE) {
                log.debug("Message {} on '{}' already handled through another broker instance: skipped", message.id(),
                        request.destination());
                return;
            }
            if (claim == Claim.BUSY) { // held by a delivery through another instance that has not finished: redeliver
                throw new ClaimWait.StillBusyException(scope, message.id());
            }
            try {
                handler.handle(message, context.withIdempotencyScope(scope));
            } catch (Exception | Error e) {
                store.release(scope, message.id());
                throw e;
            }
            store.complete(scope, message.id());
        }
    }

    // ---- Subscription ----

    @Override
    protected void stop() {
        binding.leave(this);
        try {
            closeAll();
        } finally {
            Drain d = drain;
            if (d != null) {
                d.done.completeExceptionally(new CancellationException("Subscription to '" + request.destination()
                        + "' closed before the migration drained"));
            }
        }
    }

    private void closeAll() {
        for (int i = 0; i < subscriptions.length; i++) {
            DefaultSubscription<T> s;
            synchronized (this) {
                s = subscriptions[i];
                subscriptions[i] = null;
            }
            if (s != null) {
                s.close();
            }
        }
    }

    @Override
    public String toString() {
        return "Subscription[" + request.destination() + ", group " + request.group() + " routed " + binding.state().route + "]";
    }
}
