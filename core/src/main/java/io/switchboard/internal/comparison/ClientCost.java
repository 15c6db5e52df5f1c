package io.switchboard.internal.comparison;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import io.switchboard.spi.ClientThreads;

/**
 * What each broker instance's client costs the application: CPU time and bytes on the wire.
 *
 * <p>CPU is three parts. The client's threads (the client library's and the adapter's, which the
 * adapter names through {@link io.switchboard.spi.BrokerAdapter#clientThreads()}, and core's own
 * handler lanes, claimed when made) are read with {@link ThreadMXBean} once a second, when the
 * routing ticker rolls the traffic book: each thread is classified once, by its name, and its CPU
 * time since the last reading is the instance's. The publish call on the application's threads
 * (codec, envelope, the client's send) is timed on one call in {@value #SAMPLE_EVERY}, with the
 * thread's own CPU clock, and counted {@value #SAMPLE_EVERY} times. The application's handler,
 * which runs on a counted thread, is timed on the same draw and taken off: every handler call is
 * counted, and at each closed second the calls since the last one count at the mean CPU of the
 * calls sampled among them (of all sampled so far when none was). Counting the calls matters there:
 * a handler's CPU can be a hundred times the client's, and the random number of sampled calls
 * (about 1/8 of its square root, relative) would otherwise be noise larger than the client's figure.
 * Bytes on the wire are sized on the same sampled publishes: payload, key and headers as the record
 * carries them.
 *
 * <p>Nothing here runs per message except a counter's add per handler call and the sampled calls'
 * two clock reads and adds.
 */
public final class ClientCost {

    /** One publish call and one handler call in this many is timed and sized; a power of two. */
    public static final int SAMPLE_EVERY = 64;
    /** {@code calls & SAMPLE_MASK == 0} picks the sampled call. */
    public static final int SAMPLE_MASK = SAMPLE_EVERY - 1;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU_CLOCKS = cpuClocks();
    /** A thread that belongs to no instance. */
    private static final Account NOBODY = new Account(null, "", ClientThreads.NONE, 1, Long.MIN_VALUE);

    private final int seconds;
    private final Map<String, Account> accounts = new ConcurrentHashMap<>();
    private final Map<Long, Account> claimed = new ConcurrentHashMap<>();
    // the scan's state, under this object's lock
    private final Map<Long, Account> owners = new HashMap<>();
    private final Map<Long, Long> lastCpu = new HashMap<>();
    private long lastRolled = Long.MIN_VALUE;
    private final java.util.function.LongSupplier nowSecond;

    /** @param nowSecond the book's current second */
    ClientCost(int seconds, java.util.function.LongSupplier nowSecond) {
        this.seconds = seconds;
        this.nowSecond = nowSecond;
    }

    private static boolean cpuClocks() {
        try {
            return THREADS.isThreadCpuTimeSupported() && THREADS.isCurrentThreadCpuTimeSupported()
                    && THREADS.isThreadCpuTimeEnabled();
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /** What {@link #startSample()} returns for a call that is not sampled. */
    public static final long NOT_SAMPLED = Long.MIN_VALUE;

    /**
     * {@return the thread's CPU clock when this call is one of the {@value #SAMPLE_EVERY} in a random draw (no state
     * shared between threads), else {@link #NOT_SAMPLED}; -1 for a sampled call where the JVM has no CPU clock}
     */
    public static long startSample() {
        return (ThreadLocalRandom.current().nextInt() & SAMPLE_MASK) == 0 ? threadCpu() : NOT_SAMPLED;
    }

    /** {@return the calling thread's CPU time in nanoseconds, or -1 where the JVM has no thread CPU clock} */
    public static long threadCpu() {
        return CPU_CLOCKS ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /** {@return whether CPU can be measured in this JVM} */
    public static boolean measured() {
        return CPU_CLOCKS;
    }

    /** The account of {@code instance}, whose client threads {@code clientThreads} names; made on first call. */
    public Account account(String instance, ClientThreads clientThreads) {
        return accounts.computeIfAbsent(instance, i -> new Account(this, i, clientThreads, seconds + 2,
                nowSecond.getAsLong()));
    }

    /** {@return the account of {@code instance}, or null when it has none} */
    public Account find(String instance) {
        return accounts.get(instance);
    }

    /** Reads the client threads' CPU and closes second {@code closing} in every account. */
    synchronized void roll(long closing) {
        if (closing <= lastRolled) {
            return;
        }
        lastRolled = closing;
        scan();
        for (Account a : accounts.values()) {
            a.close(closing);
        }
    }

    private void scan() {
        if (!CPU_CLOCKS || accounts.isEmpty()) {
            return;
        }
        long[] ids = THREADS.getAllThreadIds();
        Set<Long> alive = new HashSet<>(ids.length * 2);
        for (long id : ids) {
            alive.add(id);
            Account owner = owners.get(id);
            if (owner == null) {
                owner = classify(id);
                owners.put(id, owner);
            }
            if (owner == NOBODY) {
                continue;
            }
            long cpu = THREADS.getThreadCpuTime(id);
            if (cpu < 0) {
                continue; // ended meanwhile
            }
            Long before = lastCpu.put(id, cpu);
            owner.threadNanos += cpu - (before == null ? 0 : before);
        }
        for (java.util.Iterator<Long> it = owners.keySet().iterator(); it.hasNext(); ) {
            Long id = it.next();
            if (!alive.contains(id)) { // ended: forget it (a claimed thread not started yet is not in owners)
                it.remove();
                lastCpu.remove(id);
                claimed.remove(id);
            }
        }
    }

    private Account classify(long id) {
        Account a = claimed.get(id);
        if (a != null) {
            return a;
        }
        ThreadInfo info = THREADS.getThreadInfo(id, 0);
        if (info == null) {
            return NOBODY;
        }
        String name = info.getThreadName();
        for (Account candidate : accounts.values()) {
            if (candidate.clientThreads.owns(id, name)) {
                return candidate;
            }
        }
        return NOBODY;
    }

    /** Adds each instance's cost of seconds {@code from..to} into its window in {@code out}. */
    void addTo(Map<String, TrafficStats.Window> out, long from, long to) {
        for (Account a : accounts.values()) {
            TrafficStats.Window w = out.get(a.instance);
            if (w != null) {
                a.addTo(w, from, to);
            }
        }
    }

    /** Per instance, the cost of second {@code second} alone (CPU ns, wire bytes, wire samples); instances without both readings are left out. */
    Map<String, long[]> ofSecond(long second) {
        Map<String, long[]> out = new java.util.LinkedHashMap<>();
        for (Account a : accounts.values()) {
            long[] d = a.delta(second);
            if (d != null && (d[0] != 0 || d[2] != 0)) {
                out.put(a.instance, d);
            }
        }
        return out;
    }

    /** One broker instance's client cost, counted since it was made. */
    public static final class Account {
        private final String instance;
        private final ClientThreads clientThreads;
        private final LongAdder publishCalls = new LongAdder();
        private final LongAdder handlerCalls = new LongAdder();
        private final LongAdder handlerSamples = new LongAdder();
        private final LongAdder handlerSampledCpu = new LongAdder();
        // the handlers' estimated CPU up to the last closed second, and the counts it was made from (under this lock)
        private long handlerEstimate;
        private long estimatedCalls;
        private long estimatedSamples;
        private long estimatedSampledCpu;
        private final LongAdder wireBytes = new LongAdder();
        private final LongAdder wireSamples = new LongAdder();
        /** The client threads' CPU, added by the scan. */
        private volatile long threadNanos;
        private final ClientCost cost;
        // per closed second, the running totals: cpu, wire bytes, wire samples
        /** The first second closed: its totals hold everything counted since the account was made. */
        private long firstClosed = Long.MIN_VALUE;
        /**
         * The second the account was made in: no second before it is closed, as no traffic statistics close one before
         * theirs, or a roll of the second before, late in this one, would hold (and a window starting at this second
         * leave out) what was counted here until then.
         */
        private final long createdSecond;
        private final long[] ringSecond;
        private final long[][] ringTotals;

        private Account(ClientCost cost, String instance, ClientThreads clientThreads, int ringSize, long createdSecond) {
            this.cost = cost;
            this.createdSecond = createdSecond;
            this.instance = instance;
            this.clientThreads = clientThreads;
            this.ringSecond = new long[ringSize];
            java.util.Arrays.fill(ringSecond, Long.MIN_VALUE);
            this.ringTotals = new long[ringSize][3];
        }

        /** Counts the CPU of core's thread {@code thread} (a handler lane) as this instance's client. */
        public void own(Thread thread) {
            cost.claimed.put(thread.getId(), this);
        }

        /**
         * A sampled publish call took {@code cpuNanos} of its thread's CPU and put {@code bytes} on the wire.
         *
         * @param cpuNanos the call's CPU time, or a negative number when it could not be read
         * @param bytes payload, key and headers as sent
         */
        public void publishSampled(long cpuNanos, long bytes) {
            if (cpuNanos > 0) {
                publishCalls.add(cpuNanos * SAMPLE_EVERY);
            }
            wireBytes.add(bytes);
            wireSamples.increment();
        }

        /**
         * A handler call that began with {@code cpuStart} ({@link #startSample()}) has ended: it is counted, and when
         * sampled its CPU is timed. Handlers' CPU is the application's, not the client's, and is taken off (it ran on a
         * counted thread).
         *
         * @param account the account, or null when none
         * @param cpuStart what {@link #startSample()} returned
         */
        public static void handlerEnded(Account account, long cpuStart) {
            if (account != null) {
                if (cpuStart >= 0) {
                    account.handlerSampledCpu.add(Math.max(0, threadCpu() - cpuStart));
                    account.handlerSamples.increment();
                }
                account.handlerCalls.increment();
            }
        }

        /** {@return the client's CPU time since the account was made, in nanoseconds} */
        public long cpuNanos() {
            return Math.max(0, threadNanos + publishCalls.sum() - handlerCpu(false));
        }

        /**
         * {@return the handlers' estimated CPU since the account was made} The calls since the last closed second count
         * at the mean of the calls sampled among them, or of all sampled calls when none of them was; calls before the
         * first sampled one wait for it.
         *
         * @param commit true when a second closes: what is estimated now stays as it is
         */
        private synchronized long handlerCpu(boolean commit) {
            long samples = handlerSamples.sum();
            long sampledCpu = handlerSampledCpu.sum();
            long calls = handlerCalls.sum();
            if (samples == 0) {
                return handlerEstimate;
            }
            long newSamples = samples - estimatedSamples;
            double mean = newSamples > 0 ? (double) (sampledCpu - estimatedSampledCpu) / newSamples
                    : (double) sampledCpu / samples;
            long estimate = handlerEstimate + Math.round(mean * Math.max(0, calls - estimatedCalls));
            if (commit) {
                handlerEstimate = estimate;
                estimatedCalls = calls;
                estimatedSamples = samples;
                estimatedSampledCpu = sampledCpu;
            }
            return estimate;
        }

        /** {@return the mean bytes on the wire of the sampled publishes, or NaN before the first} */
        public double wireBytesPerMessage() {
            long n = wireSamples.sum();
            return n == 0 ? Double.NaN : (double) wireBytes.sum() / n;
        }

        private synchronized void close(long second) {
            if (second < createdSecond) {
                return;
            }
            if (firstClosed == Long.MIN_VALUE) {
                firstClosed = second;
            }
            int i = (int) Math.floorMod(second, (long) ringSecond.length);
            ringSecond[i] = second;
            ringTotals[i][0] = Math.max(0, threadNanos + publishCalls.sum() - handlerCpu(true));
            ringTotals[i][1] = wireBytes.sum();
            ringTotals[i][2] = wireSamples.sum();
        }

        private synchronized void addTo(TrafficStats.Window w, long from, long to) {
            long[] end = totalsAt(to);
            if (end == null) {
                return;
            }
            // the totals when the second before the window closed; none when the window starts with the account's first
            // closed second (everything counted so far is in it, as the traffic statistics count what came before their
            // first roll into their first second); else the nearest older reading (a second the ticker skipped)
            long[] base = from <= firstClosed ? null : totalsAt(from - 1);
            for (long s = from - 2; base == null && from > firstClosed && s >= firstClosed && s > to - ringSecond.length; s--) {
                base = totalsAt(s);
            }
            base = base == null ? new long[3] : base;
            w.cpuNanos += end[0] - base[0];
            w.wireBytes += end[1] - base[1];
            w.wireSamples += end[2] - base[2];
        }

        synchronized long[] delta(long second) {
            long[] end = totalsAt(second);
            long[] start = second == firstClosed ? new long[3] : totalsAt(second - 1);
            if (end == null || start == null) {
                return null;
            }
            return new long[] {end[0] - start[0], end[1] - start[1], end[2] - start[2]};
        }

        private long[] totalsAt(long second) {
            int i = (int) Math.floorMod(second, (long) ringSecond.length);
            return ringSecond[i] == second ? ringTotals[i] : null;
        }
    }
}
