package io.switchboard.bench.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CpuMeterTest {

    @Test
    @DisplayName("CPU per message: the CPU time between the readings over the messages received, NaN when unknown")
    void arithmetic() {
        assertThat(CpuMeter.perMessage(1_000_000, 3_000_000, 400)).isCloseTo(5.0, within(1e-9));
        assertThat(CpuMeter.perMessage(-1, 3_000_000, 400)).isNaN();
        assertThat(CpuMeter.perMessage(1_000_000, -1, 400)).isNaN();
        assertThat(CpuMeter.perMessage(1_000_000, 3_000_000, 0)).isNaN();
    }

    @Test
    @DisplayName("this JVM reports its CPU time, and work done between the readings shows in it")
    void readsThisJvm() {
        CpuMeter meter = CpuMeter.start(100);
        long sum = 0;
        for (int i = 0; i < 50_000_000; i++) {
            sum += Integer.bitCount(i * 31 + (int) sum);
        }
        assertThat(sum).isPositive();
        assertThat(meter.microsPerMessage(101)).as("CPU microseconds for the one message").isPositive();
    }

    @Test
    @DisplayName("another process's CPU time (utime + stime from /proc/<pid>/stat) agrees with what that JVM reports; none for no process")
    void readsAProcessByPid() {
        long pid = ProcessHandle.current().pid();
        long before = CpuMeter.processCpuNanos(pid);
        long sum = 0;
        for (int i = 0; i < 50_000_000; i++) {
            sum += Integer.bitCount(i * 17 + (int) sum);
        }
        long jvm = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
        long after = CpuMeter.processCpuNanos(pid);
        assertThat(sum).isPositive();
        assertThat(after).isGreaterThan(before);
        // /proc counts in clock ticks (10 ms); the JVM's own figure in nanoseconds: equal within a few ticks
        assertThat((double) after).isCloseTo((double) jvm, within(50e6));
        assertThat(CpuMeter.processCpuNanos(CpuMeter.NO_PROCESS)).isEqualTo(-1);
        CpuMeter meter = CpuMeter.start(0, CpuMeter.NO_PROCESS);
        assertThat(meter.brokerMicrosPerMessage(10)).isNaN();
    }
}
