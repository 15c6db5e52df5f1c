package io.switchboard.bench.run;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * This JVM's CPU time over part of a run, per message received in it: every thread's, the clients'
 * and those of brokers started in-process. NaN where the JVM does not report its CPU time.
 */
final class CpuMeter {

    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    private final long startCpuNanos;
    private final long startReceived;

    private CpuMeter(long startCpuNanos, long startReceived) {
        this.startCpuNanos = startCpuNanos;
        this.startReceived = startReceived;
    }

    /** Starts measuring now, when {@code received} messages have been received so far. */
    static CpuMeter start(long received) {
        return new CpuMeter(processCpuNanos(), received);
    }

    /** Microseconds of CPU per message received since {@link #start}, or NaN when unknown or none arrived. */
    double microsPerMessage(long received) {
        return perMessage(startCpuNanos, processCpuNanos(), received - startReceived);
    }

    /** The arithmetic, apart for tests: NaN when either CPU reading is unknown (negative) or no message arrived. */
    static double perMessage(long startCpuNanos, long endCpuNanos, long messages) {
        if (startCpuNanos < 0 || endCpuNanos < 0 || messages <= 0) {
            return Double.NaN;
        }
        return (endCpuNanos - startCpuNanos) / 1_000.0 / messages;
    }

    private static long processCpuNanos() {
        return OS instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }
}
