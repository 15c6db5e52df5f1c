package io.switchboard.internal;

import io.switchboard.Subscription;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What every {@link Subscription} core hands out shares: its destination and group, the
 * {@link #ready()} and {@link #terminated()} stages, and a {@link #close()} that runs once, tells
 * the owner ({@code onClose}) and then completes {@link #terminated()}.
 */
public abstract class SubscriptionBase implements Subscription {

    /** Set once {@link #close()} was called. */
    protected final AtomicBoolean closed = new AtomicBoolean();
    /** Completed when the subscription consumes (exceptionally when it could not start). */
    protected final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** Completed when the subscription ended: normally after {@link #close()}, exceptionally on a failure. */
    protected final CompletableFuture<Void> terminated = new CompletableFuture<>();

    private final String destination;
    private final String group;
    private final Consumer<AutoCloseable> onClose;
    /** Held by a start and by {@link #close()}'s stop, so that a close never runs beside a start on another thread. */
    private final Object lifecycle = new Object();

    /**
     * @param destination the destination consumed
     * @param group the consumer group (or the subscriber's own name for a broadcast)
     * @param onClose told once the subscription closed (its owner forgets it)
     */
    protected SubscriptionBase(String destination, String group, Consumer<AutoCloseable> onClose) {
        this.destination = destination;
        this.group = group;
        this.onClose = onClose;
    }

    @Override
    public final String destination() {
        return destination;
    }

    @Override
    public final String group() {
        return group;
    }

    @Override
    public final CompletionStage<Void> ready() {
        return ready;
    }

    @Override
    public final CompletionStage<Void> terminated() {
        return terminated;
    }

    @Override
    public boolean isActive() {
        return !closed.get() && !terminated.isDone();
    }

    /** Stops consuming (once): {@link #stop()}, then the owner is told and {@link #terminated()} completes. */
    @Override
    public final void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            synchronized (lifecycle) {
                stop();
            }
        } finally {
            onClose.accept(this);
            terminated.complete(null);
        }
    }

    /**
     * Runs {@code start} unless the subscription was closed first (then {@link #ready()} fails); a {@link #close()} on
     * another thread waits for a start under way. For a start that runs after provisioning, on another thread.
     */
    public final void startUnlessClosed(Runnable start) {
        synchronized (lifecycle) {
            if (closed.get()) {
                ready.completeExceptionally(new io.switchboard.SwitchboardClosedException("Subscription to '" + destination
                        + "' (group '" + group + "') was closed before it started"));
                return;
            }
            start.run();
        }
    }

    /**
     * Ends a subscription that could not start (its destinations could not be provisioned) as a failed start does:
     * {@link #ready()} fails with {@code cause}, then {@link #close()}. Does nothing to one already closed.
     */
    public final void failedToStart(Throwable cause) {
        ready.completeExceptionally(cause);
        close();
    }

    /** Stops consuming and releases what the subscription holds; called once, by {@link #close()}. */
    protected abstract void stop();
}
