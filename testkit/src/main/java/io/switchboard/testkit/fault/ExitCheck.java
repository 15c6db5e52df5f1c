package io.switchboard.testkit.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that a JVM ends on its own once its {@code main} returned: the test for "closing releases
 * everything", since one non-daemon thread left by a closed client keeps a JVM alive. The class
 * whose {@code main} runs is started in a JVM of its own on this JVM's class path ({@link ChildJvms});
 * its {@code main} must return without {@code System.exit}.
 */
public final class ExitCheck {

    /** A thread's header line in a {@code jcmd Thread.print} dump: its name, then {@code #<number>}, then its flags. */
    private static final Pattern THREAD = Pattern.compile("^\"(.*)\" #\\d+ (.*)$", Pattern.MULTILINE);

    private ExitCheck() {
    }

    /**
     * Runs {@code mainClass} with {@code args} in a child JVM and waits until it exits. Fails when it
     * does not exit within {@code deadline}, naming the non-daemon threads that kept it alive, with
     * the child's thread dump ({@code jcmd <pid> Thread.print}) and the end of its output, and
     * kills it; fails too when it exits with a status other than 0.
     *
     * @param directory where the child's output goes ({@code node-1.log})
     * @param mainClass the class whose {@code main} runs
     * @param args its arguments
     * @param deadline how long the child may run in all, {@code main} included
     * @throws AssertionError when the child does not exit in time, or fails
     */
    public static void assertExitsOnItsOwn(Path directory, Class<?> mainClass, List<String> args, Duration deadline) {
        ChildJvms jvm = new ChildJvms("JVM of " + mainClass.getSimpleName(), directory, mainClass,
                List.of("-Xmx384m", "-Dtls.server.mode=disabled"));
        jvm.define(1, args);
        jvm.launch(1);
        Process child = jvm.process(1);
        try {
            if (!child.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                String dump = threadDump(directory, child.pid());
                throw new AssertionError("The JVM of " + mainClass.getName() + " (pid " + child.pid() + ") did not exit within "
                        + deadline.toSeconds() + " s; non-daemon threads alive: " + nonDaemonThreads(dump)
                        + "\nend of its output (" + jvm.logOf(1) + "):\n" + tail(jvm.logOf(1)) + "\nits threads:\n" + dump);
            }
            if (child.exitValue() != 0) {
                throw new AssertionError("The JVM of " + mainClass.getName() + " exited with " + child.exitValue()
                        + "; end of its output (" + jvm.logOf(1) + "):\n" + tail(jvm.logOf(1)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the JVM of " + mainClass.getName(), e);
        } finally {
            jvm.killAll();
        }
    }

    /**
     * {@return the names of the non-daemon Java threads in a {@code jcmd Thread.print} dump, but
     * {@code DestroyJavaVM} (the thread that waits for them once {@code main} returned)}
     *
     * @param dump the dump's text
     */
    static List<String> nonDaemonThreads(String dump) {
        List<String> names = new ArrayList<>();
        Matcher m = THREAD.matcher(dump);
        while (m.find()) {
            if (!m.group(2).startsWith("daemon ") && !m.group(1).equals("DestroyJavaVM")) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    private static String threadDump(Path directory, long pid) {
        Path out = directory.resolve("thread-dump-" + pid + ".txt");
        try {
            Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "Thread.print").redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
                return "(no thread dump: jcmd did not answer within 30 s)";
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no thread dump: jcmd failed: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump: interrupted)";
        }
    }

    /** {@return the last 40 lines of a child JVM's output, for a failure's message (a test's temp dir is gone after it)} */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }
}
