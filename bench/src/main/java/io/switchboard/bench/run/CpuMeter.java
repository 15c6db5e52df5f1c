package io.switchboard.bench.run;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * CPU time over part of a run, per message received in it: this JVM's (every thread: the clients'
 * and those of brokers started in-process), and that of the broker's own process when it has one on
 * this machine (a child JVM of {@code --brokers-in-child}, the local RabbitMQ server). NaN where a
 * figure is unknown.
 */
final class CpuMeter {

    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();
    /** No broker process to read. */
    static final long NO_PROCESS = -1;

    private final long startCpuNanos;
    private final long brokerPid;
    private final long startBrokerCpuNanos;
    private final long startReceived;
    private java.util.function.DoubleSupplier clientCpuSeconds = () -> Double.NaN;
    private double startClientCpuSeconds = Double.NaN;
    private final long startJitMillis = JitActivity.millis();

    private CpuMeter(long startCpuNanos, long brokerPid, long startBrokerCpuNanos, long startReceived) {
        this.startCpuNanos = startCpuNanos;
        this.brokerPid = brokerPid;
        this.startBrokerCpuNanos = startBrokerCpuNanos;
        this.startReceived = startReceived;
    }

    /** Starts measuring this JVM now, when {@code received} messages have been received so far. */
    static CpuMeter start(long received) {
        return start(received, NO_PROCESS);
    }

    /** Starts measuring this JVM and the broker's process {@code brokerPid} ({@link #NO_PROCESS}: none). */
    static CpuMeter start(long received, long brokerPid) {
        return new CpuMeter(processCpuNanos(), brokerPid, processCpuNanos(brokerPid), received);
    }

    /** Microseconds of this JVM's CPU per message received since {@link #start}, or NaN when unknown or none arrived. */
    double microsPerMessage(long received) {
        return perMessage(startCpuNanos, processCpuNanos(), received - startReceived);
    }

    /** Also reads the live comparison's client CPU ({@link io.switchboard.bench.driver.BenchDriver#clientCpuSeconds()}) from now. */
    CpuMeter withClientCpu(java.util.function.DoubleSupplier seconds) {
        this.clientCpuSeconds = seconds;
        this.startClientCpuSeconds = seconds.getAsDouble();
        return this;
    }

    /** Microseconds of the comparison's client CPU per message received since {@link #start}, or NaN. */
    double clientMicrosPerMessage(long received) {
        double end = clientCpuSeconds.getAsDouble();
        long messages = received - startReceived;
        return Double.isNaN(end) || Double.isNaN(startClientCpuSeconds) || messages <= 0 ? Double.NaN
                : (end - startClientCpuSeconds) * 1e6 / messages;
    }

    /** The JIT compilers' milliseconds since {@link #start}, or NaN when the JVM does not say. */
    double jitMillis() {
        long now = JitActivity.millis();
        return startJitMillis < 0 || now < 0 ? Double.NaN : now - startJitMillis;
    }

    /** Microseconds of the broker process's CPU per message received since {@link #start}, or NaN (no process, none arrived). */
    double brokerMicrosPerMessage(long received) {
        return perMessage(startBrokerCpuNanos, processCpuNanos(brokerPid), received - startReceived);
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

    /**
     * Another process's user and system CPU time (on Linux the JDK reads utime and stime from
     * {@code /proc/<pid>/stat}: 10 ms steps), or -1 when there is none or it is not readable.
     */
    static long processCpuNanos(long pid) {
        if (pid == NO_PROCESS) {
            return -1;
        }
        return ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).map(java.time.Duration::toNanos).orElse(-1L);
    }
}
