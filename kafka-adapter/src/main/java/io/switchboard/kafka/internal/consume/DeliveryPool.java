package io.switchboard.kafka.internal.consume;

import io.switchboard.spi.DaemonThreads;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's threads that run shared subscriptions' handlers ({@link SerialQueue}s): elastic, none while no
 * handler runs (an idle thread retires after 10 s). Up to {@code min(processors, 4)} threads start as soon as work
 * waits with none idle; beyond that a thread starts only when work has waited {@value #STUCK_MILLIS} ms (the threads
 * are held by slow or blocked handlers), checked by the poll threads every round ({@link #check()}), so a burst of
 * many subscriptions' records does not start a thread each, and a blocked handler holds back the others' records by
 * about that long, not until it returns. Shut down when the last shared consumer or the adapter closes.
 */
public final class DeliveryPool {

    private static final Logger log = LoggerFactory.getLogger(DeliveryPool.class);
    private static final long KEEP_ALIVE_SECONDS = 10;
    private static final long STUCK_MILLIS = 50;
    private static final Runnable POISON = () -> { };

    private final String threadPrefix;
    private final int eager = Math.min(Runtime.getRuntime().availableProcessors(), 4);
    private final LinkedBlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
    private final AtomicInteger live = new AtomicInteger();
    private final AtomicInteger idle = new AtomicInteger();
    private final AtomicInteger numbers = new AtomicInteger();
    /** {@link System#nanoTime()} when a thread last took work, or when work was queued to an empty queue. */
    private volatile long lastProgressNanos = System.nanoTime();

    /** @param threadPrefix the threads' name before their number, such as {@code switchboard-kafka[main]-deliver} */
    public DeliveryPool(String threadPrefix) {
        this.threadPrefix = threadPrefix;
    }

    void execute(Runnable task) {
        if (work.isEmpty()) {
            lastProgressNanos = System.nanoTime();
        }
        work.add(task);
        if (idle.get() == 0 && live.get() < eager) {
            startWorker();
        }
    }

    /** Starts a thread when work has waited too long for one (the threads are busy); called by poll threads. */
    void check() {
        if (!work.isEmpty() && idle.get() == 0
                && System.nanoTime() - lastProgressNanos > TimeUnit.MILLISECONDS.toNanos(STUCK_MILLIS)) {
            lastProgressNanos = System.nanoTime();
            startWorker();
        }
    }

    private void startWorker() {
        live.incrementAndGet();
        DaemonThreads.newThread(threadPrefix + "-" + numbers.incrementAndGet(), this::work).start();
    }

    private void work() {
        try {
            while (true) {
                idle.incrementAndGet();
                Runnable task;
                try {
                    task = work.poll(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
                } finally {
                    idle.decrementAndGet();
                }
                if (task == null || task == POISON) {
                    return;
                }
                lastProgressNanos = System.nanoTime();
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    log.error("A delivery task failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            live.decrementAndGet();
            Runnable head = work.peek();
            if (head != null && head != POISON && idle.get() == 0) {
                startWorker(); // work came in as this thread retired
            }
        }
    }

    /** Ends the pool's threads once the work queued before is done; later work starts new ones. */
    public void shutdown() {
        for (int i = live.get(); i > 0; i--) {
            work.add(POISON);
        }
    }
}
