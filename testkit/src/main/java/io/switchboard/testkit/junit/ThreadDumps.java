package io.switchboard.testkit.junit;

import java.io.IOException;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Thread dumps as text, every frame of every thread (unlike {@link ThreadInfo#toString()}, which
 * stops at eight), with the locks each thread holds and waits for, and the deadlocks the JVM finds.
 */
public final class ThreadDumps {

    private ThreadDumps() {
    }

    /**
     * A dump of every live thread of this JVM.
     *
     * @param reason the first line of the dump: why it was taken
     * @return the dump as text
     */
    public static String dump(String reason) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ThreadInfo[] infos = threads.dumpAllThreads(threads.isObjectMonitorUsageSupported(),
                threads.isSynchronizerUsageSupported());
        Arrays.sort(infos, Comparator.comparing(ThreadInfo::getThreadName));
        StringBuilder out = new StringBuilder(16_384);
        out.append("Thread dump at ").append(Instant.now()).append(" (pid ").append(ProcessHandle.current().pid())
                .append("): ").append(reason).append('\n');
        long[] deadlocked = threads.findDeadlockedThreads();
        if (deadlocked != null) {
            out.append("DEADLOCK among thread ids ").append(Arrays.toString(deadlocked)).append('\n');
        }
        for (ThreadInfo info : infos) {
            append(out, info);
        }
        return out.toString();
    }

    /**
     * Writes a dump to a file, appending when the file exists.
     *
     * @param file where to write
     * @param reason the first line of the dump
     * @return the dump that was written
     * @throws IOException if the file cannot be written
     */
    public static String write(Path file, String reason) throws IOException {
        String dump = dump(reason);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, dump + '\n', StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        return dump;
    }

    private static void append(StringBuilder out, ThreadInfo info) {
        out.append('\n').append('"').append(info.getThreadName()).append('"')
                .append(info.isDaemon() ? " daemon" : "").append(" id=").append(info.getThreadId())
                .append(' ').append(info.getThreadState());
        if (info.getLockName() != null) {
            out.append(" on ").append(info.getLockName());
        }
        if (info.getLockOwnerName() != null) {
            out.append(" owned by \"").append(info.getLockOwnerName()).append("\" id=").append(info.getLockOwnerId());
        }
        out.append('\n');
        StackTraceElement[] frames = info.getStackTrace();
        MonitorInfo[] monitors = info.getLockedMonitors();
        for (int depth = 0; depth < frames.length; depth++) {
            out.append("\tat ").append(frames[depth]).append('\n');
            for (MonitorInfo monitor : monitors) {
                if (monitor.getLockedStackDepth() == depth) {
                    out.append("\t- locked ").append(monitor).append('\n');
                }
            }
        }
        LockInfo[] synchronizers = info.getLockedSynchronizers();
        if (synchronizers.length > 0) {
            out.append("\tLocked synchronizers: ").append(Arrays.toString(synchronizers)).append('\n');
        }
    }
}
