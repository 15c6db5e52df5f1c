package io.switchboard.bench.run;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * The JIT compilers' work in this JVM, as {@link CompilationMXBean} counts it (the compile tasks' elapsed time), and a
 * wait until they are idle. On two busy cores HotSpot's C2 thread falls minutes behind: with brokers in child JVMs it
 * still took 1.0 µs of CPU a message in the SDK's measured window of seed 001 at 16 topics, 2 min into the run (async-
 * profiler, bench/README), and the mode measured last got compiled code for free. Waiting for an idle compiler before
 * each measured run drains the queue that the runs before it left (2-3 s, measured), but does not keep the JIT out of
 * the window: a run refills the queue with the methods its own threads make hot (C2 still compiled 17-27 s in each
 * window after the wait at 16 topics). The {@code jit_ms} column shows what each row carried; one JVM per mode
 * ({@code bench/scripts/by-mode.sh}) is what gives each mode a JIT of its own.
 */
public final class JitActivity {

    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    /** Compile time that still counts as idle over one second: the odd stray method. */
    private static final long QUIET_MILLIS_PER_SECOND = 20;

    private JitActivity() {}

    /** The compilers' accumulated time in ms since the JVM started, or -1 where the JVM does not say. */
    public static long millis() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : -1;
    }

    /**
     * Waits, doing nothing else, until the compilers spent at most {@value #QUIET_MILLIS_PER_SECOND} ms in a second,
     * or until {@code max} has passed.
     *
     * @return how long it waited, or {@link Duration#ZERO} where compile time is not available
     */
    public static Duration awaitIdle(Duration max) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + max.toNanos();
        long last = millis();
        if (last < 0) {
            return Duration.ZERO;
        }
        while (System.nanoTime() < deadline) {
            Thread.sleep(Math.min(1000, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            long now = millis();
            if (now - last <= QUIET_MILLIS_PER_SECOND) {
                break;
            }
            last = now;
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
