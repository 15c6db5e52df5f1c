package io.switchboard.rocketmq.internal.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One push consumer's scheduler as rocketmq-client sees it, on the adapter's shared scheduler: a
 * task is timed by the shared scheduler's single thread and run on the shared pool (a queue lock
 * taken over the network, say, never delays another consumer's timing). Shutting it down, as the
 * consumer's shutdown does, cancels its periodic tasks and turns its pending delayed ones into
 * nothing (the consumer's consume executor is shut down with it, so they would have had nothing
 * to resubmit to). The futures returned complete when the task is handed to the pool; rocketmq-client
 * does not use them.
 */
final class ScheduledView extends AbstractExecutorService implements ScheduledExecutorService {

    private static final Logger log = LoggerFactory.getLogger(ScheduledView.class);

    private final ScheduledExecutorService timer;
    private final Executor pool;
    private final List<ScheduledFuture<?>> periodic = new ArrayList<>();
    private volatile boolean shut;

    ScheduledView(ScheduledExecutorService timer, Executor pool) {
        this.timer = timer;
        this.pool = pool;
    }

    private Runnable onPool(Runnable task) {
        return () -> {
            if (!shut) {
                pool.execute(() -> runUnlessShut(task));
            }
        };
    }

    private void runUnlessShut(Runnable task) {
        if (shut) {
            return;
        }
        try {
            task.run();
        } catch (RuntimeException e) {
            log.warn("A scheduled task of a RocketMQ consumer failed", e);
        }
    }

    private void checkOpen() {
        if (shut) {
            throw new RejectedExecutionException("RocketMQ consumer's scheduler is shut down");
        }
    }

    @Override
    public boolean isShutdown() {
        return shut;
    }

    @Override
    public void execute(Runnable task) {
        checkOpen();
        pool.execute(() -> runUnlessShut(task));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        checkOpen();
        return timer.schedule(onPool(task), delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> task, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("rocketmq-client schedules Runnables only");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit) {
        return track(timer.scheduleAtFixedRate(onPool(task), initialDelay, period, unit));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit) {
        return track(timer.scheduleWithFixedDelay(onPool(task), initialDelay, delay, unit));
    }

    private synchronized ScheduledFuture<?> track(ScheduledFuture<?> future) {
        if (shut) {
            future.cancel(false);
            throw new RejectedExecutionException("RocketMQ consumer's scheduler is shut down");
        }
        periodic.add(future);
        return future;
    }

    @Override
    public synchronized void shutdown() {
        shut = true;
        periodic.forEach(future -> future.cancel(false));
        periodic.clear();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return List.of();
    }

    /** Terminated once shut down: its tasks run on the shared pool, which it does not wait for. */
    @Override
    public boolean isTerminated() {
        return isShutdown();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }
}
