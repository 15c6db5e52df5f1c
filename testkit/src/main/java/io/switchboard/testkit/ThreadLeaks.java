package io.switchboard.testkit;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The threads started since a snapshot, to show that closing a subscription, a publisher or a
 * whole {@link io.switchboard.Switchboard} leaves none of its own or of its client library's
 * behind. Take the snapshot after the broker under test is up (an embedded broker's threads are
 * then in it), start and close the thing under test, then {@link #assertAllEnded}:
 *
 * <pre>{@code
 * ThreadLeaks before = ThreadLeaks.snapshot();
 * try (Switchboard sb = ...) { ... }
 * before.assertAllEnded(Duration.ofSeconds(30), "after the Switchboard closed");
 * }</pre>
 *
 * <p>A thread counts when it is alive now and was not at the snapshot (the same {@link Thread},
 * not merely the same name), except the JDK's and the test framework's own, which come and go on
 * their own ({@code ForkJoinPool.commonPool-worker-*}, {@code Attach Listener}, {@code process
 * reaper}, JUnit's timeout watcher), and those {@link #ignoring} names.
 */
public final class ThreadLeaks {

    /** Threads not made by what a test closes: the JDK's, the JVM tooling's, the test runner's. */
    private static final Pattern NOT_OURS = Pattern.compile(
            "ForkJoinPool\\.commonPool-worker-\\d+|Attach Listener|process reaper|Common-Cleaner|Signal Dispatcher"
                    + "|junit-jupiter-timeout-watcher|surefire-forkedjvm-.*|JFR .*|RMI .*|Notification Thread");

    private final Set<Thread> before;
    private final Predicate<Thread> ignored;

    private ThreadLeaks(Set<Thread> before, Predicate<Thread> ignored) {
        this.before = before;
        this.ignored = ignored;
    }

    /** {@return the threads alive now, to compare with later} */
    public static ThreadLeaks snapshot() {
        Set<Thread> alive = Collections.newSetFromMap(new IdentityHashMap<>());
        alive.addAll(Thread.getAllStackTraces().keySet());
        return new ThreadLeaks(alive, t -> NOT_OURS.matcher(t.getName()).matches());
    }

    /**
     * {@return this snapshot, also ignoring threads whose whole name matches {@code regex}} For
     * threads of something else in the JVM that start on their own later, such as an in-process
     * broker's threads for a new topic; never for the thing under test.
     *
     * @param regex the names to ignore
     */
    public ThreadLeaks ignoring(String regex) {
        Pattern names = Pattern.compile(regex);
        return new ThreadLeaks(before, ignored.or(t -> names.matcher(t.getName()).matches()));
    }

    /** {@return the threads alive now that were not at the snapshot (and are not ignored), by name} */
    public List<Thread> started() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && !before.contains(t))
                .filter(ignored.negate()).sorted(Comparator.comparing(Thread::getName)).toList();
    }

    /**
     * Waits up to {@code deadline} until every thread started since the snapshot has ended;
     * fails listing the ones left, with their stacks.
     *
     * @param deadline how long the threads may take to end
     * @param when when this is checked, for the message ("after the subscription closed")
     * @throws AssertionError naming each thread left, daemon or not, with its stack
     */
    public void assertAllEnded(Duration deadline, String when) {
        long end = System.nanoTime() + deadline.toNanos();
        List<Thread> left = started();
        while (!left.isEmpty() && System.nanoTime() - end < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            left = started();
        }
        if (!left.isEmpty()) {
            throw new AssertionError(left.size() + " thread(s) started since the snapshot still alive " + deadline.toSeconds()
                    + " s " + when + ": " + left.stream().map(Thread::getName).toList() + "\n" + describe(left));
        }
    }

    private static String describe(List<Thread> threads) {
        StringBuilder out = new StringBuilder();
        for (Thread t : threads) {
            StackTraceElement[] stack = t.getStackTrace();
            out.append('"').append(t.getName()).append('"').append(t.isDaemon() ? " daemon" : " NON-DAEMON")
                    .append(' ').append(t.getState()).append('\n');
            Arrays.stream(stack).limit(40).forEach(f -> out.append("\tat ").append(f).append('\n'));
        }
        return out.toString();
    }
}
