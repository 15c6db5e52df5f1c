package io.switchboard.spi;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads of an adapter's own (a poll loop, a follower, a scheduler): daemon threads, so that a
 * thread an application forgot to close never keeps the JVM alive, named so that a thread dump
 * says what each one serves.
 */
public final class DaemonThreads {

    private DaemonThreads() {}

    /**
     * {@return a daemon thread running {@code work}, not started}
     *
     * @param name the thread's name, such as {@code switchboard-kafka-<destination>-<group>}
     * @param work what the thread runs
     */
    public static Thread newThread(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * {@return a factory of daemon threads all named {@code name}, for an executor of one thread}
     *
     * @param name the threads' name
     */
    public static ThreadFactory named(String name) {
        return work -> newThread(name, work);
    }

    /**
     * {@return a factory of daemon threads named {@code <prefix>-1}, {@code <prefix>-2}, and so on}
     *
     * @param prefix the threads' name before the number
     */
    public static ThreadFactory numbered(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return work -> newThread(prefix + "-" + count.incrementAndGet(), work);
    }
}
