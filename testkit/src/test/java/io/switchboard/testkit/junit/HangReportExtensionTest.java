package io.switchboard.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary.Failure;

@DisplayName("HangReportExtension: a test that hangs fails within its timeout, with a thread dump")
class HangReportExtensionTest {

    @Test
    @DisplayName("a test blocked on a latch fails at the default timeout; the dump shows where it was stuck")
    void blockedTestFailsWithDump() {
        long started = System.nanoTime();
        Failure failure = runAlone(BlocksOnLatch.class);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

        assertThat(seconds).as("the run ended soon after the 2 s timeout").isLessThan(30);
        assertThat(failure.getException()).isInstanceOf(TimeoutException.class)
                .hasMessageContaining("timed out after 2 seconds");
        String dump = dumpOf(failure);
        assertThat(dump).contains("about to interrupt thread")
                .contains("HangReportExtensionTest$BlocksOnLatch.waitsForever")
                .contains("java.util.concurrent.CountDownLatch.await");
    }

    @Test
    @DisplayName("a test that ignores interrupts, in a separate thread, fails at its timeout with the stuck thread in the dump")
    void uninterruptibleTestFailsWithDump() {
        long started = System.nanoTime();
        Failure failure = runAlone(IgnoresInterrupts.class);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

        assertThat(seconds).as("the run ended at the 1 s timeout, not when the method gave up (20 s)")
                .isLessThan(15);
        assertThat(failure.getException()).isInstanceOf(TimeoutException.class);
        assertThat(dumpOf(failure)).contains("HangReportExtensionTest$IgnoresInterrupts.parksThroughInterrupts");
    }

    @Test
    @DisplayName("the watchdog writes a dump of every thread to its file when due")
    void watchdogWritesFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("hang-dump-test.txt");
        Thread watchdog = HangReportExtension.startWatchdog(System.currentTimeMillis() + 200, "the test's reason",
                file);
        try {
            await("dump file " + file + " written").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> Files.exists(file) && Files.readString(file).contains("\"switchboard-hang-watchdog\""));
            String dump = Files.readString(file);
            assertThat(dump).startsWith("Thread dump at ").contains("the test's reason")
                    .contains("HangReportExtensionTest.watchdogWritesFile");
        } finally {
            watchdog.interrupt();
            watchdog.join(10_000);
        }
        assertThat(watchdog.isAlive()).as("watchdog stopped by an interrupt").isFalse();
    }

    private static Failure runAlone(Class<?> testClass) {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(testClass))
                .configurationParameter("junit.jupiter.execution.timeout.default", "2 s")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .build(), listener);
        List<Failure> failures = listener.getSummary().getFailures();
        assertThat(failures).as("failures of " + testClass.getSimpleName()).hasSize(1);
        return failures.get(0);
    }

    private static String dumpOf(Failure failure) {
        Throwable[] suppressed = failure.getException().getSuppressed();
        assertThat(suppressed).as("suppressed exceptions of the timeout").anySatisfy(s ->
                assertThat(s).isInstanceOf(HangReportExtension.ThreadDump.class));
        for (Throwable s : suppressed) {
            if (s instanceof HangReportExtension.ThreadDump) {
                return s.getMessage();
            }
        }
        throw new AssertionError("unreachable");
    }

    /** Run only through {@link #runAlone}: waits on a latch nobody counts down. */
    static class BlocksOnLatch {
        @Test
        void waitsForever() throws InterruptedException {
            new CountDownLatch(1).await();
        }
    }

    /** Run only through {@link #runAlone}: parks through interrupts for up to 20 s. */
    static class IgnoresInterrupts {
        @Test
        @Timeout(value = 1, threadMode = ThreadMode.SEPARATE_THREAD)
        void parksThroughInterrupts() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }
}
