package io.switchboard.internal.routing;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.internal.DefaultPublisher;
import io.switchboard.internal.Instance;
import io.switchboard.internal.resilience.ResilienceSettings;
import io.switchboard.internal.resilience.ResilientPublisher;
import io.switchboard.routing.RoutingMode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher of a multi-instance Switchboard: one {@link DefaultPublisher} per instance the
 * destination's route has used, and per message one volatile read of the route and an array
 * index (split: a hash, or a draw of {@link java.util.concurrent.ThreadLocalRandom} for a keyless message or a
 * per-message split, and a scan of a few cumulative weights). No allocation on the split and
 * single paths; mirror and failover stamp the message so both instances see the same id.
 */
final class RoutingPublisher<T> implements Publisher<T>, RouteBinding.Participant {

    private static final Logger log = LoggerFactory.getLogger(RoutingPublisher.class);

    private final Router router;
    private final RouteBinding binding;
    private final String destination;
    private final Codec<T> codec;
    private final Delivery delivery;
    private final Map<String, String> properties;
    private final Consumer<AutoCloseable> onClose;
    private final List<Instance> instances;
    private final DefaultPublisher<T>[] publishers;
    private final CircuitBreaker[] breakers;
    private final boolean[] ownBreaker;
    /** Whether this publisher has published a delayed message: routes must then keep delayed delivery. */
    private volatile boolean delays;
    private final Counter[] decisions;
    private final Counter[] fallbacks;
    private volatile ShadowMirror<T> shadow;
    /** Written after a publisher or breaker is made off the route-change path; read before them on the failover path. */
    private volatile int ready;
    private final Retrier primaryRetry = new Retrier();
    private final AtomicBoolean closed = new AtomicBoolean();

    @SuppressWarnings("unchecked")
    RoutingPublisher(Router router, RouteBinding binding, Codec<T> codec, Delivery delivery, Map<String, String> properties,
            Consumer<AutoCloseable> onClose) {
        this.router = router;
        this.binding = binding;
        this.destination = binding.destination;
        this.codec = codec;
        this.delivery = delivery;
        this.properties = Map.copyOf(properties);
        this.onClose = onClose;
        this.instances = router.instanceList();
        this.publishers = new DefaultPublisher[instances.size()];
        this.breakers = new CircuitBreaker[instances.size()];
        this.ownBreaker = new boolean[instances.size()];
        this.decisions = router.meters().decisionCounters(destination);
        this.fallbacks = router.meters().fallbackCounters(destination);
    }

    // ---- following the route ----

    @Override
    public void check(RouteState next) {
        if (!delays) {
            return;
        }
        for (int i : next.reads) {
            Instance instance = instances.get(i);
            if (!instance.capabilities().delayedDelivery()) {
                throw new UnsupportedCapabilityException("Route " + next.route + " of '" + destination + "' is refused: "
                        + "broker instance '" + instance.name() + "' (" + instance.capabilities().brokerId() + ") has no "
                        + "delayed delivery, which a live publisher of '" + destination + "' uses (it has published delayed "
                        + "messages); route '" + destination + "' only to instances with delayed delivery, or close that "
                        + "publisher first");
            }
        }
    }

    @Override
    public void prepare(RouteState next) {
        for (int i : next.reads) {
            if (next.mode == RoutingMode.FAILOVER && i == next.primary) {
                tryPrimary(i); // a failover route starts on its secondary when the primary is down
            } else if (next.mode == RoutingMode.MIRROR || i == next.primary || next.mode == RoutingMode.SPLIT
                    || next.mode == RoutingMode.FAILOVER) {
                publisherOf(i);
            }
        }
        if (next.mode == RoutingMode.MIRROR && shadow == null) {
            shadow = new ShadowMirror<>(destination, router.shadowBuffer(), binding.shadowCheck,
                    router.meters().shadowCounters(destination));
        }
    }

    @Override
    public void applied(RouteState previous, RouteState next) {
        // publishers on instances the route no longer uses stay open until close or a migration's drain
    }

    /** Closes the publisher on {@code instance} (a drained migration source). */
    void release(int instance) {
        DefaultPublisher<T> p;
        synchronized (this) {
            p = publishers[instance];
            RouteState s = binding.state();
            if (p == null || s.mode != RoutingMode.MIGRATE || s.secondary != instance) {
                return;
            }
            publishers[instance] = null;
        }
        log.info("Publisher to '{}' released broker instance '{}'", destination, instances.get(instance).name());
        p.close();
    }

    /**
     * Makes the failover primary's publisher and breaker; when its broker cannot be reached, logs
     * it and leaves it missing: publishes go to the secondary, and the routing ticker tries again
     * ({@link #retryMissingPrimary}).
     */
    private boolean tryPrimary(int i) {
        try {
            publisherOf(i);
            breakerOf(i);
            ready++;
            return true;
        } catch (RuntimeException e) {
            primaryRetry.attempted();
            log.warn("Failover route of '{}': primary '{}' is not available ({}); publishing to the secondary until it is",
                    destination, instances.get(i).name(), e.getMessage());
            return false;
        }
    }

    /** On the routing ticker: tries again, at most every 5 s and off the ticker thread, to make a missing failover primary. */
    void retryMissingPrimary() {
        RouteState s = binding.state();
        if (closed.get() || s.mode != RoutingMode.FAILOVER || publishers[s.primary] != null) {
            return;
        }
        primaryRetry.maybeRun(() -> {
            if (tryPrimary(s.primary)) {
                log.info("Failover route of '{}': primary '{}' is available again", destination, instances.get(s.primary).name());
            }
        });
    }

    private synchronized DefaultPublisher<T> publisherOf(int i) {
        DefaultPublisher<T> p = publishers[i];
        if (p == null) {
            p = instances.get(i).publisher(destination, codec, delivery, properties, c -> { });
            publishers[i] = p;
        }
        return p;
    }

    private synchronized void breakerOf(int i) {
        if (breakers[i] == null) {
            CircuitBreaker cb = publisherOf(i).circuitBreaker();
            if (cb == null) {
                Instance instance = instances.get(i);
                cb = ResilientPublisher.circuitBreaker(instance.name() + "/" + destination + "/failover",
                        ResilienceSettings.forDestination(instance.config(), destination), instance.shared().resilience());
                ownBreaker[i] = true;
            }
            breakers[i] = cb;
        }
    }

    // ---- publishing ----

    @Override
    public CompletionStage<PublishReceipt> publish(Message<T> message) {
        if (closed.get()) {
            throw new SwitchboardClosedException("Publisher for '" + destination + "' is closed; create a new one with "
                    + "Switchboard.publisher(..)");
        }
        if (message == null) {
            throw new InvalidMessageException("Message to '" + destination + "' is null; publish a message with a payload");
        }
        if (!delays && (message.delay() != null || message.deliverAt() != null)) {
            delays = true; // from now on a route towards an instance without delayed delivery is refused
        }
        RouteState s = binding.state();
        switch (s.mode) {
            case SPLIT:
                String key = message.key();
                if (key != null && !binding.keyed) {
                    binding.keyed = true; // once: the report then says a split by key gave the instances different keys
                }
                return send(s.pick(key), message);
            case MIRROR:
                Message<T> stamped = message.stamped();
                CompletionStage<PublishReceipt> result = send(s.primary, stamped);
                shadow.offer(publishers[s.secondary], stamped);
                return result;
            case FAILOVER:
                return failover(s, message.stamped());
            default:
                return send(s.primary, message);
        }
    }

    private CompletionStage<PublishReceipt> send(int instance, Message<T> message) {
        Counter c = decisions[instance];
        if (c != null) {
            c.increment();
        }
        return publishers[instance].publish(message);
    }

    private CompletionStage<PublishReceipt> failover(RouteState s, Message<T> message) {
        int primary = s.primary;
        if (ready == 0 || breakers[primary] == null) {
            return send(s.secondary, message); // the primary was not reachable when the route began
        }
        CircuitBreaker cb = breakers[primary];
        boolean own = ownBreaker[primary];
        // tryAcquirePermission also moves an open breaker to half-open once its wait is over, so traffic returns
        boolean permitted = cb.tryAcquirePermission();
        if (permitted && !own) {
            cb.releasePermission(); // the primary's own resilient publisher takes the permit it records against
        }
        if (!permitted) {
            return send(s.secondary, message);
        }
        long start = System.nanoTime();
        CompletionStage<PublishReceipt> first;
        try {
            first = send(primary, message);
        } catch (RuntimeException e) {
            if (own) {
                cb.releasePermission();
            }
            throw e;
        }
        CompletableFuture<PublishReceipt> result = new CompletableFuture<>();
        first.whenComplete((receipt, error) -> {
            if (own) {
                if (error == null) {
                    cb.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                } else {
                    cb.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, error);
                }
            }
            if (error == null) {
                result.complete(receipt);
                return;
            }
            Counter f = fallbacks[s.secondary];
            if (f != null) {
                f.increment();
            }
            log.debug("Publish of {} to '{}' on '{}' failed; sending it to '{}'", message.id(), destination,
                    instances.get(primary).name(), instances.get(s.secondary).name(), error);
            try {
                send(s.secondary, message).whenComplete((r, e) -> {
                    if (e == null) {
                        result.complete(r);
                    } else {
                        e.addSuppressed(error);
                        result.completeExceptionally(e);
                    }
                });
            } catch (RuntimeException e) {
                e.addSuppressed(error);
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        binding.leave(this);
        try {
            ShadowMirror<T> m = shadow;
            if (m != null) {
                m.close();
            }
            for (DefaultPublisher<T> p : publishers) {
                if (p != null) {
                    p.close();
                }
            }
        } finally {
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return "Publisher[" + destination + " routed " + binding.state().route + "]";
    }
}
