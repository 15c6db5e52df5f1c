package io.switchboard.bench.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The heap after a forced full GC, probed at the start of the measured phase, every
 * {@code interval} while it lasts, and at its end: the trend of the live set, for soak runs ("heap
 * after GC flat"). The heap is the whole JVM's, in-process brokers included. Forcing a GC pauses
 * every thread, so probes cost the run some smoothness; they are off (interval zero) unless asked for.
 */
public final class HeapProbe {

    private final Duration interval;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final List<double[]> points = new ArrayList<>();
    private Thread thread;

    /** Probes every {@code interval}; zero means no probes. */
    public HeapProbe(Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("heap probe interval must be zero (off) or positive but was " + interval);
        }
        this.interval = interval;
    }

    /** Starts probing at {@code startNanos} (System.nanoTime) until {@code endNanos}, on a daemon thread. */
    public void start(long startNanos, long endNanos) {
        if (interval.isZero() || endNanos == Long.MAX_VALUE) {
            return;
        }
        thread = new Thread(() -> {
            long next = startNanos;
            while (!Thread.currentThread().isInterrupted()) {
                LockSupport.parkNanos(next - System.nanoTime());
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                probe(startNanos);
                if (next >= endNanos) {
                    return;
                }
                next = Math.min(endNanos, next + interval.toNanos());
            }
        }, "bench-heap-probe");
        thread.setDaemon(true);
        thread.start();
    }

    private void probe(long startNanos) {
        System.gc();
        double mib = memory.getHeapMemoryUsage().getUsed() / (1024d * 1024d);
        double minutes = (System.nanoTime() - startNanos) / 60e9;
        synchronized (points) {
            points.add(new double[] {minutes, mib});
        }
    }

    /** Waits for the last probe (at most {@code timeout}) and returns the trend. */
    public HeapTrend finish(Duration timeout) throws InterruptedException {
        if (thread != null) {
            thread.join(TimeUnit.NANOSECONDS.toMillis(timeout.toNanos()) + 1);
            thread.interrupt();
        }
        synchronized (points) {
            return HeapTrend.of(points);
        }
    }
}
