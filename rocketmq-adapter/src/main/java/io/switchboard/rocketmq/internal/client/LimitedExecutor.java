package io.switchboard.rocketmq.internal.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One push consumer's consume "pool" as rocketmq-client sees it (a {@link ThreadPoolExecutor},
 * the type of its consume services' field), running on the adapter's shared threads instead of
 * threads of its own: at most {@code limit} of the consumer's consume requests run at once, the
 * others wait in submission order, as in the pool of {@code limit} threads it replaces. When the
 * consumer has nothing to consume it holds no thread.
 *
 * <p>Only {@link #execute} and the lifecycle methods are used (by {@code submit}, and by the
 * consume service's {@code shutdown}); the base class never starts a thread of its own.
 * {@link #shutdownNow} interrupts only threads while they run one of this consumer's requests.
 */
final class LimitedExecutor extends ThreadPoolExecutor {

    private static final Logger log = LoggerFactory.getLogger(LimitedExecutor.class);

    private final Executor shared;
    private final int limit;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private final Set<Thread> running = new HashSet<>();
    private int draining;
    private boolean shut;

    LimitedExecutor(Executor shared, int limit) {
        super(limit, limit, 1, TimeUnit.MINUTES, new SynchronousQueue<>());
        this.shared = shared;
        this.limit = limit;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (shut) {
                throw new RejectedExecutionException("RocketMQ consumer's consume executor is shut down");
            }
            waiting.add(task);
            if (draining >= limit) {
                return;
            }
            draining++;
        }
        try {
            shared.execute(this::drain);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                draining--;
                waiting.remove(task);
                notifyAll();
            }
            throw e;
        }
    }

    /** Runs waiting requests on the calling shared thread until none is left. */
    private void drain() {
        Thread self = Thread.currentThread();
        boolean done = false;
        try {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = waiting.poll();
                    if (next == null) {
                        // in the same lock as the empty poll, so that a request added now starts a new drain
                        draining--;
                        done = true;
                        notifyAll();
                        return;
                    }
                    running.add(self);
                }
                try {
                    next.run();
                } catch (RuntimeException e) {
                    log.warn("A RocketMQ consume request failed", e);
                } finally {
                    synchronized (this) {
                        running.remove(self);
                    }
                    // An interrupt from shutdownNow() was meant for this consumer's request only.
                    Thread.interrupted();
                }
            }
        } finally {
            if (!done) {
                synchronized (this) {
                    draining--;
                    notifyAll();
                }
            }
        }
    }

    @Override
    public synchronized void shutdown() {
        shut = true;
        notifyAll();
    }

    @Override
    public List<Runnable> shutdownNow() {
        synchronized (this) {
            shut = true;
            List<Runnable> dropped = new ArrayList<>(waiting);
            waiting.clear();
            running.forEach(Thread::interrupt);
            notifyAll();
            return dropped;
        }
    }

    @Override
    public synchronized boolean isShutdown() {
        return shut;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shut && draining == 0;
    }

    @Override
    public synchronized boolean isTerminating() {
        return shut && draining > 0;
    }

    @Override
    public synchronized boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!(shut && draining == 0)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** RocketMQ may resize its pool (an admin command); the limit stays what the subscription asked for. */
    @Override
    public void setCorePoolSize(int corePoolSize) {
        // ignored: see above
    }

    @Override
    public synchronized int getActiveCount() {
        return running.size();
    }

    @Override
    public String toString() {
        return "LimitedExecutor[limit " + limit + "]";
    }
}
