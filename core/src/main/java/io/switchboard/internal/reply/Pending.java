package io.switchboard.internal.reply;

import io.switchboard.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BiConsumer;

/**
 * A request awaiting its reply: the future the caller holds, its own time-out task (run on the requester's timer) and
 * its own end (so that each request allocates no lambdas of its own).
 */
final class Pending<R> extends CompletableFuture<Message<R>> implements Runnable, BiConsumer<Message<R>, Throwable> {

    private final DefaultRequester<?, R> requester;
    final String correlationId;
    final Duration timeout;
    final long startNanos = System.nanoTime();
    volatile ScheduledFuture<?> timeoutTask;
    /** The instance whose publish acknowledged the request, once known. */
    volatile String carrier;
    /** The instance the reply came through. */
    volatile String replier;
    volatile boolean published;

    Pending(DefaultRequester<?, R> requester, String correlationId, Duration timeout) {
        this.requester = requester;
        this.correlationId = correlationId;
        this.timeout = timeout;
    }

    /**
     * Forgets the request before the caller's future completes: a caller woken by the completion sees it no longer
     * pending (the future's dependents, this one's end among them, may run after the caller's wake-up).
     */
    @Override
    public boolean complete(Message<R> reply) {
        requester.forget(this);
        return super.complete(reply);
    }

    @Override
    public boolean completeExceptionally(Throwable error) {
        requester.forget(this);
        return super.completeExceptionally(error);
    }

    /** The time-out. */
    @Override
    public void run() {
        completeExceptionally(requester.timedOut(this));
    }

    /** The end, however it came. */
    @Override
    public void accept(Message<R> reply, Throwable error) {
        requester.ended(this, error);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}
