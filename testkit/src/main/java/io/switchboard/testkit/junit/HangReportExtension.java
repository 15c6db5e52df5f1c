package io.switchboard.testkit.junit;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.PreInterruptCallback;
import org.junit.jupiter.api.extension.PreInterruptContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a hung test diagnosable from the build log alone.
 *
 * <ul>
 *   <li>When a test or lifecycle method passes its JUnit timeout ({@code @Timeout} or
 *       {@code junit.jupiter.execution.timeout.default}), its failure carries a dump of every
 *       thread of the JVM as a suppressed {@link ThreadDump}: taken just before JUnit interrupts the
 *       method (so it shows where the method was stuck), or when the failure arrives if JUnit did not
 *       interrupt (a timeout in a separate thread).
 *   <li>With the system property {@value #FORK_TIMEOUT} (seconds, surefire's
 *       {@code forkedProcessTimeoutInSeconds}) set, a daemon watchdog writes a dump of the whole JVM
 *       to {@code hang-dump-<pid>.txt} in the directory named by {@value #DUMP_DIR} (default
 *       {@code target}) 60 s and again 30 s before surefire kills the JVM, so that a fork that hangs
 *       where no JUnit timeout reaches (an uninterruptible wait) is killed with its threads on file.
 * </ul>
 *
 * <p>Register it with {@code @ExtendWith(HangReportExtension.class)}, or for every test class with
 * the configuration parameter {@code junit.jupiter.extensions.autodetection.enabled=true} (the
 * testkit jar lists it as a {@code org.junit.jupiter.api.extension.Extension} service).
 */
public final class HangReportExtension
        implements PreInterruptCallback, TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {

    /** System property: seconds after the JVM's start at which surefire kills it; the watchdog dumps before. */
    public static final String FORK_TIMEOUT = "switchboard.test.fork-timeout-seconds";
    /** System property: the directory for the watchdog's dump files. */
    public static final String DUMP_DIR = "switchboard.test.dump-dir";

    private static final Logger log = LoggerFactory.getLogger(HangReportExtension.class);
    private static final Namespace NAMESPACE = Namespace.create(HangReportExtension.class);
    private static final AtomicBoolean WATCHDOG = new AtomicBoolean();
    private static final Duration REPEAT = Duration.ofSeconds(30);

    /** Creates the extension and, once per JVM, the watchdog if {@value #FORK_TIMEOUT} is set. */
    public HangReportExtension() {
        String timeout = System.getProperty(FORK_TIMEOUT, "").trim();
        if (!timeout.isEmpty() && WATCHDOG.compareAndSet(false, true)) {
            long seconds = Math.max(1, Long.parseLong(timeout) - 60);
            long started = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli)
                    .orElse(System.currentTimeMillis());
            startWatchdog(started + seconds * 1000, "the test JVM is still running " + seconds
                    + " s after its start, close to its " + FORK_TIMEOUT + " of " + timeout + " s: a test may hang",
                    Path.of(System.getProperty(DUMP_DIR, "target")).resolve(
                            "hang-dump-" + ProcessHandle.current().pid() + ".txt"));
        }
    }

    @Override
    public void beforeThreadInterrupt(PreInterruptContext preInterruptContext, ExtensionContext context) {
        Thread thread = preInterruptContext.getThreadToInterrupt();
        context.getStore(NAMESPACE).put(context.getUniqueId(), ThreadDumps.dump(
                context.getDisplayName() + " passed its timeout; about to interrupt thread \"" + thread.getName()
                        + "\""));
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw withDump(context, failure);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure)
            throws Throwable {
        throw withDump(context, failure);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure)
            throws Throwable {
        throw withDump(context, failure);
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure)
            throws Throwable {
        throw withDump(context, failure);
    }

    @Override
    public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable failure)
            throws Throwable {
        throw withDump(context, failure);
    }

    /** The failure, with a thread dump added when it is a timeout that has none yet. */
    static Throwable withDump(ExtensionContext context, Throwable failure) {
        if (!(failure instanceof TimeoutException)) {
            return failure;
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            if (suppressed instanceof ThreadDump) {
                return failure;
            }
        }
        String dump = context.getStore(NAMESPACE).remove(context.getUniqueId(), String.class);
        if (dump == null) {
            dump = ThreadDumps.dump(context.getDisplayName() + " failed: " + failure.getMessage());
        }
        failure.addSuppressed(new ThreadDump(dump));
        return failure;
    }

    /**
     * Starts the watchdog thread: a dump to {@code file} when {@code due} (epoch milliseconds) comes,
     * then one every 30 s until the JVM exits or the thread is interrupted.
     */
    static Thread startWatchdog(long due, String why, Path file) {
        Thread watchdog = new Thread(() -> {
            try {
                for (long next = due; ; next += REPEAT.toMillis()) {
                    long wait = next - System.currentTimeMillis();
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    ThreadDumps.write(file, why);
                    log.error("{}: thread dump written to {}", why, file.toAbsolutePath());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                log.error("Could not write the hang thread dump to {}", file.toAbsolutePath(), e);
            }
        }, "switchboard-hang-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }

    /** A thread dump carried by a timeout's failure; its message is the dump, it has no stack of its own. */
    public static final class ThreadDump extends RuntimeException {

        private static final long serialVersionUID = 1L;

        ThreadDump(String dump) {
            super(dump, null, false, false);
        }
    }
}
