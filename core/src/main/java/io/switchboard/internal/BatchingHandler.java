package io.switchboard.internal;

import io.switchboard.BatchHandler;
import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link BatchHandler} with its bounds, handed to a subscription as its handler: the subscription sees it and
 * collects batches on its lanes. Called with one message (a path that knows no batches), it handles a batch of one.
 *
 * @param <T> payload type
 */
public final class BatchingHandler<T> implements MessageHandler<T> {

    private final BatchHandler<T> handler;
    private final int size;
    private final long waitNanos;

    /**
     * Wraps {@code handler}.
     *
     * @param handler the batch handler
     * @param size the most messages in a batch, at least 1
     * @param wait how long a lane waits for more messages once it holds one
     */
    public BatchingHandler(BatchHandler<T> handler, int size, Duration wait) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.size = size;
        this.waitNanos = wait.toNanos();
    }

    BatchHandler<T> handler() {
        return handler;
    }

    int size() {
        return size;
    }

    long waitNanos() {
        return waitNanos;
    }

    @Override
    public void handle(Message<T> message, DeliveryContext context) throws Exception {
        DefaultBatch<T> batch = new DefaultBatch<>(List.of(message), List.of(context));
        handler.handle(batch);
        Throwable failed = batch.failure(0);
        if (failed instanceof Exception e) {
            throw e;
        }
        if (failed != null) {
            throw new IllegalStateException(failed.toString(), failed);
        }
    }
}
