package io.switchboard.internal;

import io.switchboard.AsyncMessageHandler;
import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs an {@link AsyncMessageHandler} as a {@link MessageHandler}: the handler thread that handed the message over
 * (a lane, or the adapter's delivery thread when it handles inline) waits for the stage, at most the handler timeout,
 * and then returns (the stage completed normally) or throws (it failed, was null, or did not complete in time).
 *
 * <p>Why the thread waits, rather than the lane moving on and settling later: the lane's next message, of the same
 * partition or key, must not reach the handler before this one completed (per-key order, which Spring Kafka's manual
 * acknowledgement with out-of-order commits gives up), so the lane has nothing else to do meanwhile; other keys run
 * on the other lanes. Waiting here also leaves everything after the handler as it is for a synchronous handler: the
 * retry loop and its back-off, broker-side retry, dead letters, the exactly-once claim completed only after success,
 * the handler's duration metric and trace span ending at completion, and the in-flight count, settled only when the
 * message is. A parked thread per lane costs no more than a blocking synchronous handler does; the deadline keeps a
 * lost completion from holding a key (and its lane) forever. Nothing of this is on the synchronous handlers' path:
 * they are not wrapped.
 *
 * @param <T> payload type
 */
public final class AwaitingHandler<T> implements MessageHandler<T> {

    private final AsyncMessageHandler<T> handler;
    private final Duration timeout;
    private final long timeoutNanos;

    /**
     * Wraps {@code handler}.
     *
     * @param handler the asynchronous handler
     * @param timeout how long a stage may take before the attempt counts as failed; positive
     */
    public AwaitingHandler(AsyncMessageHandler<T> handler, Duration timeout) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public void handle(Message<T> message, DeliveryContext context) throws Exception {
        CompletionStage<?> stage = handler.handle(message, context);
        if (stage == null) {
            throw new IllegalStateException("The asynchronous handler of '" + context.destination() + "' (group '"
                    + context.group() + "') returned null for message " + message.id() + " instead of a CompletionStage; "
                    + "return a stage that completes when the work is done, such as CompletableFuture.completedFuture(null)");
        }
        try {
            future(stage).get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw failure(e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            throw new TimeoutException("The stage returned by the asynchronous handler of '" + context.destination()
                    + "' (group '" + context.group() + "') for message " + message.id() + " (attempt " + context.attempt()
                    + ") did not complete within handlerTimeout " + timeout + "; complete it normally or exceptionally, "
                    + "or raise SubscriberBuilder.handlerTimeout(..) if the work takes longer");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw e;
        }
    }

    /** The stage as a future to wait on; a stage that cannot be one is copied into one. */
    private static CompletableFuture<?> future(CompletionStage<?> stage) {
        try {
            return stage.toCompletableFuture();
        } catch (UnsupportedOperationException e) {
            CompletableFuture<Object> copy = new CompletableFuture<>();
            stage.whenComplete((value, error) -> {
                if (error == null) {
                    copy.complete(value);
                } else {
                    copy.completeExceptionally(error);
                }
            });
            return copy;
        }
    }

    /** The failure the stage completed with, out of the {@link CompletionException}s stages derived from it wrap it in. */
    private static Exception failure(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Exception e) {
            return e;
        }
        if (cause instanceof Error e) { // as from a synchronous handler: not a failed attempt, the record goes back
            throw e;
        }
        return new ExecutionException(cause);
    }

    @Override
    public String toString() {
        return "AwaitingHandler[" + handler + ", timeout " + timeout + "]";
    }
}
