package io.switchboard.internal.provision;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Provisions one broker instance's destinations off the application's thread, many at a time. A publisher or
 * subscription asks for its destinations with {@link #submit}; what is asked while a round is under way goes into the
 * next round, which makes every destination it holds with one {@link Provisioner#createDestinations} call (one admin
 * round trip where the broker can), runs each request's follow-up (a subscription's start), begun in the order asked,
 * while the broker brings the new destinations online, and completes the round's requests once they take writes.
 * So an application that makes hundreds of subscriptions in a loop waits for none of them, and the broker sees a few
 * batched calls instead of one per destination. Deferred destinations (dead-letter ones) are made, again in one call,
 * when no request waits: they delay no round and do not load the broker while it makes one.
 *
 * <p>Run on the caller's thread instead, as before: every request while the instance has not yet provisioned anything
 * (so that an unreachable broker or a refused login fails the first {@code build()} or {@code subscribe()} with its
 * error), every request with {@code switchboard.provisioning=inline}, and a request whose destinations are all made
 * and not waited on by an earlier request (a subscription to a destination its publisher made: it starts at once, so
 * what is published next finds it; its deferred dead-letter destination goes to the next round).
 *
 * <p>When a round's batched call fails, its requests are tried one by one so that each gets its own error; after two
 * of them failed in a row (a broker that went away rather than a destination it refuses), the rest fail with the
 * round's error. One worker thread, {@code switchboard-provision[<instance>]}, made on demand and gone after
 * {@value #IDLE_SECONDS} s without work or at {@link #close()}; a round's subscriptions start up to {@value #STARTERS}
 * at once (short-lived {@code -start-N} helpers), and a publisher's request of the round completes after them.
 */
public final class ProvisionQueue implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProvisionQueue.class);
    static final int IDLE_SECONDS = 2;
    static final int JOIN_SECONDS = 5;
    private static final Duration JOIN = Duration.ofSeconds(JOIN_SECONDS);
    /** Subscriptions started at once in a round (their starts mostly wait on the broker). */
    static final int STARTERS = 4;
    /** The longest the deferred destinations wait for what their round's starts began (a subscription's readiness). */
    static final int SETTLE_SECONDS = 3;
    private static final Duration START_WAIT = Duration.ofMinutes(2);

    private final String instance;
    private final Provisioner provisioner;
    private final Function<String, DestinationSpec> specs;
    /** Destinations made or found by this queue. */
    private final Set<String> ensured = ConcurrentHashMap.newKeySet();
    /** Destinations created by a round that still waits for them to take writes, with that wait. */
    private final Map<String, CompletableFuture<Void>> writing = new ConcurrentHashMap<>();
    /** The rounds' threads that wait for their destinations to take writes while the worker goes on. */
    private final Set<Thread> waiters = ConcurrentHashMap.newKeySet();
    private static final Runnable NOTHING = () -> { };
    /** When the last round's wait for writes ended; guarded by {@link #lock}. */
    private long writesDoneAt = System.nanoTime();
    private final Object lock = new Object();
    /** Requests not yet taken by the worker; guarded by {@link #lock}. */
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    /** For each destination, the last request holding it that has not finished; guarded by {@link #lock}. */
    private final Map<String, CompletableFuture<Void>> unfinished = new HashMap<>();
    private Thread worker;
    private boolean closed;
    private volatile boolean provisionedOnce;
    private final boolean inline;

    /**
     * @param instance the broker instance's name, for thread names and errors
     * @param provisioner the adapter's provisioner
     * @param specs the spec of a destination to make (name and partitions)
     * @param inline true to provision every request on the caller's thread, as before this queue existed
     *     ({@code switchboard.provisioning=inline})
     */
    public ProvisionQueue(String instance, Provisioner provisioner, Function<String, DestinationSpec> specs, boolean inline) {
        this.inline = inline;
        this.instance = instance;
        this.provisioner = provisioner;
        this.specs = specs;
    }

    /**
     * The adapter's provisioner as the application sees it ({@code Switchboard.provisioning()}): a destination it
     * deletes is made again by the next publisher or subscription that needs it.
     */
    public Provisioner view() {
        return new Provisioner() {
            // what the application made through this view exists: a subscription to it starts at once, on the
            // caller's thread, instead of waiting behind a round (another subscription's dead-letter destination)
            @Override
            public void ensureDestination(DestinationSpec spec) {
                provisioner.ensureDestination(spec);
                ensured.add(spec.name());
            }

            @Override
            public void ensureDestinations(List<DestinationSpec> list) {
                provisioner.ensureDestinations(list);
                list.forEach(spec -> ensured.add(spec.name()));
            }

            @Override
            public void deleteDestination(String name) {
                ensured.remove(name);
                provisioner.deleteDestination(name);
            }
        };
    }

    /**
     * @param destinations made before {@code then}
     * @param deferred made after the round's starts (a subscription's dead-letter destination: needed only when a
     *     message is dead-lettered, and its publisher waits for it)
     * @param done completes after {@code then}
     * @param deferredDone completes when {@code deferred} are made
     * @param settled what {@code then} began and the deferred destinations wait for (up to {@value #SETTLE_SECONDS} s),
     *     such as a subscription's readiness; null for nothing
     */
    private record Request(List<String> destinations, List<String> deferred, Runnable then, CompletableFuture<Void> done,
            CompletableFuture<Void> deferredDone, CompletionStage<?> settled) {

        boolean isSettled() {
            return settled == null || settled.toCompletableFuture().isDone();
        }

        List<String> all() {
            return java.util.stream.Stream.concat(destinations.stream(), deferred.stream()).distinct().toList();
        }
    }

    /** As {@link #submit(List, List, Runnable, CompletionStage)} with nothing deferred. */
    public CompletableFuture<Void> submit(List<String> destinations, Runnable then) {
        return submit(destinations, List.of(), then, null);
    }

    /** As {@link #submit(List, List, Runnable, CompletionStage)} with nothing to wait for. */
    public CompletableFuture<Void> submit(List<String> destinations, List<String> deferred, Runnable then) {
        return submit(destinations, deferred, then, null);
    }

    /**
     * Makes the destinations, then runs {@code then} (may be null), then makes the deferred destinations (on the
     * caller's thread: all in one call before {@code then}). {@link #pending} gives what a deferred one waits on.
     * The deferred destinations are made once no request waits and {@code settled} (may be null) is done, or
     * {@value #SETTLE_SECONDS} s after the round: a subscription's group join does not compete with them on the broker.
     *
     * @return completes when the destinations are made and {@code then} ran (exceptionally with the provisioner's or
     *     {@code then}'s error); already complete when they ran on the caller's thread, which then also got any error
     */
    public CompletableFuture<Void> submit(List<String> destinations, List<String> deferred, Runnable then,
            CompletionStage<?> settled) {
        List<String> first = List.copyOf(new LinkedHashSet<>(destinations));
        Request request = new Request(first, deferred.stream().filter(d -> !first.contains(d)).distinct().toList(), then,
                new CompletableFuture<>(), new CompletableFuture<>(), settled);
        Request later = null;
        synchronized (lock) {
            if (closed) {
                throw new SwitchboardClosedException("Broker instance '" + instance + "' is closed; cannot provision "
                        + request.all());
            }
            boolean everything = inline || !provisionedOnce;
            if (!everything && !(ensured.containsAll(first) && first.stream().noneMatch(unfinished::containsKey))) {
                enqueue(request);
                return request.done();
            }
            if (!everything && !ensured.containsAll(request.deferred())) {
                // made already: start here, and make the deferred ones in the next round (their publisher waits)
                later = new Request(List.of(), request.deferred(), null, CompletableFuture.completedFuture(null),
                        request.deferredDone(), settled);
                enqueue(later);
            }
        }
        ensure(later == null ? request.all() : first);
        provisionedOnce = true;
        if (then != null) {
            then.run();
        }
        request.done().complete(null);
        if (later == null) {
            request.deferredDone().complete(null);
        }
        return request.done();
    }

    private void enqueue(Request request) {
        waiting.add(request);
        if (!request.deferred().isEmpty() && request.settled() != null) {
            request.settled().whenComplete((ignored, error) -> {
                synchronized (lock) {
                    lock.notifyAll();
                }
            });
        }
        request.destinations().forEach(d -> unfinished.put(d, request.done()));
        request.deferred().forEach(d -> unfinished.put(d, request.deferredDone()));
        if (worker == null) {
            worker = new Thread(this::work, "switchboard-provision[" + instance + "]");
            worker.setDaemon(true);
            worker.start();
        } else {
            lock.notifyAll();
        }
    }

    /** {@return what a destination asked for and not yet made waits on, else null} */
    public CompletableFuture<Void> pending(String destination) {
        synchronized (lock) {
            return unfinished.get(destination);
        }
    }

    private void ensure(List<String> destinations) {
        create(destinations).run();
    }

    /**
     * Creates the destinations not made yet; the returned wait returns once they take writes, and only then counts
     * them as made (so that a request for one of them meanwhile waits for the next round rather than starting at once).
     */
    private Runnable create(List<String> destinations) {
        List<CompletableFuture<Void>> earlier = destinations.stream().map(writing::get).filter(java.util.Objects::nonNull)
                .distinct().toList();
        List<DestinationSpec> missing = destinations.stream().filter(d -> !ensured.contains(d) && !writing.containsKey(d))
                .map(specs).toList();
        if (missing.isEmpty() && earlier.isEmpty()) {
            return NOTHING;
        }
        Runnable wait = missing.isEmpty() ? NOTHING : provisioner.createDestinations(missing);
        CompletableFuture<Void> writable = new CompletableFuture<>();
        missing.forEach(s -> writing.put(s.name(), writable));
        return () -> {
            try {
                wait.run();
                missing.forEach(s -> ensured.add(s.name()));
                writable.complete(null);
                for (CompletableFuture<Void> other : earlier) { // created by a round whose wait is still under way
                    awaitEarlier(other, destinations);
                }
            } catch (RuntimeException e) {
                writable.completeExceptionally(e);
                throw e;
            } finally {
                missing.forEach(s -> writing.remove(s.name(), writable));
            }
        };
    }

    private void awaitEarlier(CompletableFuture<Void> other, List<String> destinations) {
        try {
            other.get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : new SwitchboardException(e.getCause().toString(),
                    e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new SwitchboardException("Broker instance '" + instance + "' did not make " + destinations
                    + " writable within " + START_WAIT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while waiting for " + destinations + " to take writes", e);
        }
    }

    private void work() {
        List<Request> owed = new ArrayList<>(); // requests whose deferred destinations are still to be made
        long settleUntil = 0;
        while (true) {
            List<Request> round;
            synchronized (lock) {
                long idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(IDLE_SECONDS);
                while (waiting.isEmpty() && !closed) {
                    // the deferred destinations wait for the rounds' writes too, and settle from the last of them
                    boolean writesPending = !waiters.isEmpty();
                    long left = (owed.isEmpty() ? idleUntil : Math.max(settleUntil, writesDoneAt
                            + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS))) - System.nanoTime();
                    if (!owed.isEmpty() && !writesPending && (left <= 0 || owed.stream().allMatch(Request::isSettled))) {
                        break;
                    }
                    if (left <= 0 && owed.isEmpty()) {
                        worker = null;
                        return;
                    }
                    try {
                        lock.wait(writesPending ? 100 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    } catch (InterruptedException e) {
                        closed = true;
                    }
                }
                round = new ArrayList<>(waiting);
                waiting.clear();
                if (closed) {
                    worker = null;
                    round.forEach(r -> finish(r, closedError(r)));
                    round.addAll(owed);
                    round.forEach(r -> {
                        r.deferredDone().completeExceptionally(closedError(r));
                        forget(r.deferred(), r.deferredDone());
                    });
                    return;
                }
            }
            if (round.isEmpty()) {
                makeDeferred(owed);
                owed = new ArrayList<>();
            } else {
                owed.addAll(run(round));
                settleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
            }
        }
    }

    /**
     * Makes the round's destinations, starts its subscriptions, completes its publishers' requests.
     *
     * @return the requests whose deferred destinations are still to be made: the worker makes them when no request
     *     waits, so that they neither delay the next round nor load the broker while it makes that round's
     */
    private List<Request> run(List<Request> round) {
        long began = System.nanoTime();
        Created created = provisionEach(round, Request::destinations);
        Map<Request, RuntimeException> failed = new HashMap<>(created.failed());
        List<Request> starts = new ArrayList<>();
        List<Request> made = new ArrayList<>();
        for (Request request : round) {
            RuntimeException error = failed.get(request);
            if (error != null) {
                fail(request, error);
            } else {
                (request.then() == null ? made : starts).add(request);
            }
        }
        long provisioned = System.nanoTime();
        // the subscriptions start while the broker brings the new destinations online (a consumer's join overlaps it);
        // every request of the round completes once they take writes, a publisher's after the starts
        CompletableFuture<Void> writable = new CompletableFuture<>();
        startAll(starts, writable);
        long started = System.nanoTime();
        Runnable complete = () -> {
            RuntimeException unwritable = errorOf(created.writable());
            if (unwritable == null) {
                writable.complete(null);
                made.forEach(request -> finish(request, null));
            } else {
                starts.forEach(request -> failDeferred(request, unwritable)); // before completing fails their requests
                writable.completeExceptionally(unwritable);
                made.forEach(request -> fail(request, unwritable));
            }
            log.debug("Instance '{}': a round of {} request(s): destinations created in {} ms, {} subscription(s) started "
                    + "in {} ms, destinations writable {} ms after that", instance, round.size(),
                    (provisioned - began) / 1_000_000, starts.size(), (started - provisioned) / 1_000_000,
                    (System.nanoTime() - started) / 1_000_000);
        };
        if (created.writable() == NOTHING) {
            complete.run();
        } else {
            // waited for off the worker, so that the next round's destinations are created meanwhile
            Thread waiter = new Thread(() -> {
                try {
                    complete.run();
                } finally {
                    synchronized (lock) {
                        writesDoneAt = System.nanoTime();
                        waiters.remove(Thread.currentThread());
                        lock.notifyAll();
                    }
                }
            }, "switchboard-provision[" + instance + "]-writable");
            waiter.setDaemon(true);
            waiters.add(waiter);
            waiter.start();
        }
        return round.stream().filter(r -> !failed.containsKey(r)).toList();
    }

    /** Fails the request and its deferred destinations' waiters. */
    private void fail(Request request, RuntimeException error) {
        finish(request, error);
        failDeferred(request, error);
    }

    private void failDeferred(Request request, RuntimeException error) {
        request.deferredDone().completeExceptionally(error);
        forget(request.deferred(), request.deferredDone());
    }

    /** Makes the deferred destinations of the requests, in one call; a failure is logged and fails their waiters. */
    private void makeDeferred(List<Request> owed) {
        long began = System.nanoTime();
        Map<Request, RuntimeException> failed = provisionFully(owed, Request::deferred);
        for (Request request : owed) {
            RuntimeException error = failed.get(request);
            if (error == null) {
                request.deferredDone().complete(null);
            } else {
                log.warn("Broker instance '{}' could not make {} (needed when a message is dead-lettered): {}", instance,
                        request.deferred(), error.getMessage());
                request.deferredDone().completeExceptionally(error);
            }
            forget(request.deferred(), request.deferredDone());
        }
        log.debug("Instance '{}': deferred destinations of {} request(s) made in {} ms", instance, owed.size(),
                (System.nanoTime() - began) / 1_000_000);
    }

    /**
     * What {@link #provisionEach} created: the requests whose part could not be made, with the error, and the wait
     * until the rest take writes.
     */
    private record Created(Map<Request, RuntimeException> failed, Runnable writable) {}

    /** As {@link #provisionEach}, and waits until what it created takes writes (a failure then fails every request). */
    private Map<Request, RuntimeException> provisionFully(List<Request> requests, Function<Request, List<String>> part) {
        Created created = provisionEach(requests, part);
        try {
            created.writable().run();
            return created.failed();
        } catch (RuntimeException e) {
            Map<Request, RuntimeException> failed = new HashMap<>();
            requests.forEach(request -> failed.put(request, created.failed().getOrDefault(request, e)));
            return failed;
        }
    }

    /**
     * Creates each request's part ({@code part}) with one call for all; when that fails, makes them request by
     * request (each waited until it takes writes), so that each gets its own error, until two in a row failed: then
     * the rest get the batched call's error.
     */
    private Created provisionEach(List<Request> requests, Function<Request, List<String>> part) {
        Map<Request, RuntimeException> failed = new HashMap<>();
        try {
            return new Created(failed, create(requests.stream().flatMap(r -> part.apply(r).stream()).distinct().toList()));
        } catch (RuntimeException e) {
            log.debug("Provisioning {} request(s) at once on instance '{}' failed ({}); trying them one by one",
                    requests.size(), instance, e.toString());
            int failedInARow = 0;
            for (Request request : requests) {
                if (failedInARow >= 2) {
                    failed.put(request, e);
                    continue;
                }
                try {
                    ensure(part.apply(request));
                    failedInARow = 0;
                } catch (RuntimeException one) {
                    failedInARow++;
                    failed.put(request, one);
                }
            }
            return new Created(failed, NOTHING);
        }
    }

    /**
     * Runs the follow-ups (subscriptions' starts, which may wait on the broker) in the order asked, up to
     * {@value #STARTERS} at once: the worker and short-lived helper threads take the next one in turn. Each request
     * completes when its start ended and {@code writable} completed (with the start's error, else {@code writable}'s).
     */
    private void startAll(List<Request> starts, CompletableFuture<Void> writable) {
        AtomicInteger next = new AtomicInteger();
        Runnable drain = () -> {
            for (int i = next.getAndIncrement(); i < starts.size(); i = next.getAndIncrement()) {
                Request request = starts.get(i);
                if (isClosed()) {
                    finish(request, closedError(request));
                    continue;
                }
                RuntimeException startError = errorOf(request.then());
                writable.whenComplete((ignored, unwritable) -> finish(request, startError != null ? startError : unwritable));
            }
        };
        List<Thread> helpers = new ArrayList<>();
        for (int i = 1; i < Math.min(STARTERS, starts.size()); i++) {
            Thread helper = new Thread(drain, "switchboard-provision[" + instance + "]-start-" + i);
            helper.setDaemon(true);
            helper.start();
            helpers.add(helper);
        }
        drain.run();
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        for (Thread helper : helpers) {
            if (!ended(helper, deadline)) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                log.warn("A subscription's start on broker instance '{}' still runs after {}; going on with the next "
                        + "round", instance, START_WAIT);
            }
        }
    }

    private void finish(Request request, Throwable error) {
        if (error == null) {
            request.done().complete(null);
        } else {
            request.done().completeExceptionally(error);
        }
        forget(request.destinations(), request.done());
    }

    private void forget(List<String> destinations, CompletableFuture<Void> done) {
        synchronized (lock) {
            destinations.forEach(d -> unfinished.remove(d, done));
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private SwitchboardException closedError(Request request) {
        return new SwitchboardClosedException("Broker instance '" + instance + "' closed before " + request.destinations()
                + " were provisioned");
    }

    /**
     * Fails the requests not yet taken, and waits up to {@value #JOIN_SECONDS} s for a round under way (call it before
     * the adapter closes, so that the round's admin call is not cut off; a round that outlasts the wait is logged).
     */
    @Override
    public void close() {
        Thread running;
        synchronized (lock) {
            closed = true;
            running = worker;
            lock.notifyAll();
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(JOIN.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (running.isAlive()) {
                log.warn("Provisioning on broker instance '{}' still running {} after close; its requests fail as the "
                        + "adapter closes", instance, JOIN);
            }
        }
        long deadline = System.nanoTime() + JOIN.toNanos();
        for (Thread waiter : List.copyOf(waiters)) {
            if (!ended(waiter, deadline)) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                log.warn("A provisioning round on broker instance '{}' still waits for its destinations {} after close; "
                        + "its requests fail as the adapter closes", instance, JOIN);
            }
        }
    }

    /** Waits for the thread until the deadline ({@link System#nanoTime()}); {@return whether it ended} */
    private static boolean ended(Thread thread, long deadline) {
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** Runs it; {@return what it threw, or null} */
    private static RuntimeException errorOf(Runnable action) {
        try {
            action.run();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }
}
