package io.switchboard.internal.reply;

import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.DeliveryContext;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.RequestTimeoutException;
import io.switchboard.Requester;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.SubscriptionException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requester: a publisher for requests, a broadcast subscription to the reply destination on every instance, and
 * the pending replies by correlation id, each with its time-out on one timer thread.
 */
public final class DefaultRequester<Q, R> implements Requester<Q, R> {

    private static final Logger log = LoggerFactory.getLogger(DefaultRequester.class);
    /** How long {@link #start} waits for the reply subscriptions to be ready. */
    static final Duration READY_WAIT = Duration.ofSeconds(60);
    /** Replies fetched and not yet handled, at most, per instance. */
    private static final int REPLY_IN_FLIGHT = 1024;

    private final String destination;
    private final String replyTo;
    private final Codec<R> replyCodec;
    private final Duration timeout;
    private final RequestMeters meters;
    private final Consumer<AutoCloseable> onClose;
    private final ConcurrentHashMap<String, Pending<R>> pending = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timer;
    /** Unique to this requester, so that replicas sharing a reply destination never take each other's replies. */
    private final String prefix = UUID.randomUUID().toString().substring(0, 13) + "-";
    private final AtomicLong next = new AtomicLong();
    private final List<Subscription> replies = new ArrayList<>();
    private Publisher<Q> publisher;
    private volatile boolean closed;

    private DefaultRequester(String destination, String replyTo, Codec<R> replyCodec, Duration timeout, RequestMeters meters,
            Consumer<AutoCloseable> onClose) {
        this.destination = destination;
        this.replyTo = replyTo;
        this.replyCodec = replyCodec;
        this.timeout = timeout;
        this.meters = meters;
        this.onClose = onClose;
        this.timer = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("switchboard-requests-" + destination));
        this.timer.setRemoveOnCancelPolicy(true); // a request answered in time leaves nothing queued
    }

    /**
     * Starts the reply subscriptions, waits for them to be ready, then makes the request publisher.
     *
     * @throws SubscriptionException when a reply subscription is not ready within {@link #READY_WAIT}
     */
    public static <Q, R> DefaultRequester<Q, R> start(ReplyTransport transport, String destination, Codec<Q> requestCodec,
            Codec<R> replyCodec, String replyTo, Duration timeout, Delivery delivery, Map<String, String> properties,
            Consumer<AutoCloseable> onClose) {
        DefaultRequester<Q, R> r = new DefaultRequester<>(destination, replyTo, replyCodec, timeout,
                new RequestMeters(transport, destination), onClose);
        try {
            for (String instance : transport.instances()) {
                // broadcast: every requester sharing the reply destination sees every reply and keeps its own; at-most-once:
                // a reply is worth something only to the requester alive now, and its handler never fails
                SubscriptionRequest<byte[]> request = SubscriptionRequest.of(replyTo, Codec.bytes(), "replies", true,
                        Delivery.AT_MOST_ONCE, 1, REPLY_IN_FLIGHT, RetryPolicy.NONE, null, null, Duration.ofSeconds(5), null,
                        Map.of());
                r.replies.add(transport.subscribeOn(instance, request, r::onReply));
            }
            for (Subscription s : r.replies) {
                awaitReady(s, replyTo);
            }
            r.publisher = transport.publisher(destination, requestCodec, delivery, properties);
            return r;
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    private static void awaitReady(Subscription s, String replyTo) {
        try {
            s.ready().toCompletableFuture().get(READY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SubscriptionException("The reply subscription to '" + replyTo + "' was not ready within "
                    + READY_WAIT.toSeconds() + " s; is the broker reachable?", e);
        } catch (ExecutionException e) {
            throw new SubscriptionException("The reply subscription to '" + replyTo + "' could not start: "
                    + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubscriptionException("Interrupted while the reply subscription to '" + replyTo + "' started", e);
        }
    }

    @Override
    public CompletableFuture<Message<R>> request(Message<Q> message) {
        return request(message, timeout);
    }

    @Override
    public CompletableFuture<Message<R>> request(Message<Q> message, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ConfigurationException("A request's time-out must be positive but was " + timeout
                    + "; how long a request to '" + destination + "' awaits its reply, such as Duration.ofSeconds(5)");
        }
        ensureOpen();
        String correlationId = prefix + Long.toString(next.incrementAndGet(), 36);
        Message<Q> request = message.toBuilder().header(Envelope.REPLY_TO, replyTo)
                .header(Envelope.CORRELATION_ID, correlationId).build();
        Pending<R> p = new Pending<>(this, correlationId, timeout);
        pending.put(correlationId, p); // before the send: a reply may come before publish returns
        p.whenComplete(p);
        if (closed) { // close() may have failed the pending ones before this one was put
            p.completeExceptionally(closedException());
            return p;
        }
        p.timeoutTask = timer.schedule(p, timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (p.isDone()) {
            p.timeoutTask.cancel(false);
        }
        try {
            publisher.publish(request).whenComplete((receipt, error) -> {
                if (error != null) {
                    p.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error);
                } else {
                    p.carrier = receipt.instance();
                    p.published = true;
                }
            });
        } catch (RuntimeException e) { // an input error, thrown at once as Publisher.publish throws it
            p.completeExceptionally(e);
            throw e;
        }
        return p;
    }

    /** A reply, on a reply subscription's handler thread. */
    private void onReply(Message<byte[]> reply, DeliveryContext context) {
        String correlationId = reply.headers().get(Envelope.CORRELATION_ID);
        Pending<R> p = correlationId == null ? null : pending.get(correlationId);
        if (p == null) {
            meters.dropped(context.instance());
            if (log.isDebugEnabled()) {
                log.debug("Dropped a reply on '{}' with correlation id {}: no request of this requester awaits it "
                        + "(another requester's, or it came after its time-out)", replyTo, correlationId);
            }
            return;
        }
        p.replier = context.instance();
        R value;
        try {
            value = replyCodec.decode(reply.payload());
        } catch (RuntimeException e) {
            p.completeExceptionally(e instanceof CodecException ? e : new CodecException("The reply to request "
                    + correlationId + " on '" + replyTo + "' could not be decoded with " + replyCodec + ": " + e, e));
            return;
        }
        p.complete(reply.withPayload(value));
    }

    /** Drops a request from those awaiting a reply (before its future completes; idempotent). */
    void forget(Pending<R> p) {
        pending.remove(p.correlationId, p);
    }

    /** The end of a request, however it came: frees its state and records it. */
    void ended(Pending<R> p, Throwable error) {
        pending.remove(p.correlationId, p);
        ScheduledFuture<?> t = p.timeoutTask;
        if (t != null) {
            t.cancel(false);
        }
        long nanos = System.nanoTime() - p.startNanos;
        if (error == null) {
            meters.record(p.replier, RequestMeters.SUCCESS, nanos);
        } else {
            meters.record(p.carrier, error instanceof RequestTimeoutException ? RequestMeters.TIMEOUT : RequestMeters.FAILURE,
                    nanos);
        }
    }

    RequestTimeoutException timedOut(Pending<R> p) {
        return new RequestTimeoutException(destination, replyTo, p.correlationId, p.timeout, p.published);
    }

    private void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    private SwitchboardClosedException closedException() {
        return new SwitchboardClosedException("The requester to '" + destination + "' is closed; make a new one with "
                + "Switchboard.requester(destination, requestCodec, replyCodec)");
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public String replyTo() {
        return replyTo;
    }

    @Override
    public int pending() {
        return pending.size();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Pending<R> p : List.copyOf(pending.values())) {
            p.completeExceptionally(closedException());
        }
        if (publisher != null) {
            publisher.close();
        }
        replies.forEach(Subscription::close);
        timer.shutdownNow();
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "Requester[" + destination + " -> " + replyTo + ", pending=" + pending.size() + "]";
    }
}
