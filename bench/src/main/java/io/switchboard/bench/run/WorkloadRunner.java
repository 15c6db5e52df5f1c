package io.switchboard.bench.run;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.driver.BenchProducer;
import io.switchboard.bench.measure.BenchClock;
import io.switchboard.bench.measure.HeapProbe;
import io.switchboard.bench.measure.HeapTrend;
import io.switchboard.bench.measure.RateLimiter;
import io.switchboard.bench.measure.SendStamp;
import io.switchboard.bench.workload.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one workload on one driver: topics, consumers (ready before anything is sent), producers,
 * a warm-up, the measured phase, a drain, and the clean-up. Sender threads follow an open-loop
 * schedule ({@link RateLimiter}) at a fixed rate, or send as fast as a window of unacknowledged
 * messages allows when the rate is 0; synchronous producers have a window of one.
 */
public final class WorkloadRunner {

    private static final Logger log = LoggerFactory.getLogger(WorkloadRunner.class);
    private static final int MAX_SENDER_THREADS = 4;
    private static final int MAX_SYNC_SENDER_THREADS = 64;
    private static final Duration ACK_STALL = Duration.ofSeconds(30);

    private final Workload workload;
    private final BenchDriver driver;
    private final String runId;
    private final RunProgress progress;
    private final HeapProbe heapProbe;
    private final long brokerPid;
    private final RunStats stats = new RunStats();
    private final List<String> topics = new ArrayList<>();
    private final List<AutoCloseable> consumers = new ArrayList<>();
    private final List<BenchProducer> producers = new ArrayList<>();
    private volatile boolean aborted;

    /**
     * Prepares a run.
     *
     * @param runId a short id unique among runs on the broker, used in topic and group names
     * @param heapProbeInterval how often to force a GC and probe the heap while measuring; zero for never
     */
    public WorkloadRunner(Workload workload, BenchDriver driver, String runId, RunProgress progress,
            Duration heapProbeInterval) {
        this(workload, driver, runId, progress, heapProbeInterval, CpuMeter.NO_PROCESS);
    }

    /**
     * Prepares a run on a broker that has a process of its own on this machine, whose CPU time is
     * measured too ({@link RunResult#brokerCpuMicrosPerMessage()}).
     *
     * @param runId a short id unique among runs on the broker, used in topic and group names
     * @param heapProbeInterval how often to force a GC and probe the heap while measuring; zero for never
     * @param brokerPid the broker's process id, or -1 for none
     */
    public WorkloadRunner(Workload workload, BenchDriver driver, String runId, RunProgress progress,
            Duration heapProbeInterval, long brokerPid) {
        this.brokerPid = brokerPid;
        this.workload = workload;
        this.driver = driver;
        this.runId = runId;
        this.progress = progress;
        this.heapProbe = new HeapProbe(heapProbeInterval);
    }

    /** Runs it; a failure is reported in the result rather than thrown. */
    public RunResult run() {
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "bench-sampler"));
        try {
            progress.phase("setup");
            setUp();
            return measure(sampler);
        } catch (Exception e) {
            log.debug("Run {} on {} {} failed", workload.label(), driver.broker(), driver.mode(), e);
            return RunResult.failed(workload, driver.broker(), driver.mode(), e.toString());
        } finally {
            aborted = true;
            sampler.shutdownNow();
            progress.phase("cleanup");
            cleanUp();
        }
    }

    private void setUp() throws Exception {
        List<String> names = new ArrayList<>();
        for (int t = 0; t < workload.topics(); t++) {
            names.add("sbb-" + runId + "-t" + t);
        }
        driver.createTopics(names, workload.partitionsPerTopic());
        topics.addAll(names);
        // one consumer group per topic and subscription, as applications name them: groups spanning
        // topics would make every new member rebalance all the others
        for (int t = 0; t < topics.size(); t++) {
            for (int s = 0; s < workload.subscriptionsPerTopic(); s++) {
                for (int c = 0; c < workload.consumersPerSubscription(); c++) {
                    consumers.add(driver.createConsumer(topics.get(t), "sbb-" + runId + "-t" + t + "g" + s, c,
                            workload.consumersPerSubscription(), stats));
                }
            }
        }
        for (String topic : topics) {
            for (int p = 0; p < workload.producersPerTopic(); p++) {
                producers.add(driver.createProducer(topic));
            }
        }
    }

    private RunResult measure(ScheduledExecutorService sampler) throws InterruptedException {
        int threads = Math.min(producers.size(), workload.synchronous() ? MAX_SYNC_SENDER_THREADS : MAX_SENDER_THREADS);
        long startNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long measureStartNanos = startNanos + workload.warmup().toNanos();
        long measureEndNanos = workload.countBased() ? Long.MAX_VALUE : measureStartNanos + workload.duration().toNanos();
        long measureStartMicros = BenchClock.toMicros(measureStartNanos);
        stats.begin(measureStartMicros, startNanos);
        heapProbe.start(measureStartNanos, measureEndNanos);
        sampler.scheduleAtFixedRate(() -> progress.sample(stats.sample()),
                TimeUnit.NANOSECONDS.toMillis(startNanos - System.nanoTime()) + 1000, 1000, TimeUnit.MILLISECONDS);
        progress.phase(workload.warmup().isZero() ? "measuring" : "warm-up");
        List<Thread> senders = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            List<BenchProducer> mine = new ArrayList<>();
            for (int p = i; p < producers.size(); p += threads) {
                mine.add(producers.get(p));
            }
            double rate = workload.producerRate() * (double) mine.size() / producers.size();
            long quota = workload.messageCount() / threads + (i < workload.messageCount() % threads ? 1 : 0);
            Sender sender = new Sender(mine, rate, quota, startNanos, measureStartNanos, measureEndNanos);
            senders.add(daemon(sender, "bench-sender-" + i));
        }
        senders.forEach(Thread::start);
        boolean announced = workload.warmup().isZero();
        CpuMeter cpu = announced ? CpuMeter.start(stats.receivedAll.sum(), brokerPid).withClientCpu(driver::clientCpuSeconds) : null;
        for (Thread sender : senders) {
            while (sender.isAlive()) {
                sender.join(100);
                if (!announced && System.nanoTime() >= measureStartNanos) {
                    progress.phase("measuring");
                    announced = true;
                    cpu = CpuMeter.start(stats.receivedAll.sum(), brokerPid).withClientCpu(driver::clientCpuSeconds);
                }
            }
        }
        HeapTrend heap = heapProbe.finish(Duration.ofSeconds(60));
        progress.phase("draining");
        drain();
        long receivedAll = stats.receivedAll.sum();
        double cpuPerMessage = cpu == null ? Double.NaN : cpu.microsPerMessage(receivedAll);
        double brokerCpuPerMessage = cpu == null ? Double.NaN : cpu.brokerMicrosPerMessage(receivedAll);
        double clientCpuPerMessage = cpu == null ? Double.NaN : cpu.clientMicrosPerMessage(receivedAll);
        double jitMillis = cpu == null ? Double.NaN : cpu.jitMillis();
        long start = measureStartMicros;
        long acked = stats.acked.sum();
        long received = stats.received.sum();
        return new RunResult(workload, driver.broker(), driver.mode(), stats.sent.sum(), acked, stats.failed.sum(),
                received, acked * workload.subscriptionsPerTopic(),
                RunStats.rate(acked, start, stats.lastAckMicros.get()),
                RunStats.rate(received, start, stats.lastReceiveMicros.get()),
                RunStats.summary(stats.endToEnd), RunStats.summary(stats.publishLatency),
                RunStats.summary(stats.publishDelay), stats.cv(0), stats.cv(1), stats.samples(), heap, cpuPerMessage,
                brokerCpuPerMessage, clientCpuPerMessage, jitMillis, stats.failed.sum() > 0 && acked == 0 ? stats.firstError : null);
    }

    /** Waits for acknowledgements, then for consumers, each until nothing moves for the drain timeout. */
    private void drain() {
        long timeout = workload.drainTimeout().toNanos();
        waitWhileMoving(() -> stats.outstanding.get() <= 0, () -> stats.ackedAll.sum() + stats.failed.sum(), timeout);
        long expected = stats.acked.sum() * workload.subscriptionsPerTopic();
        waitWhileMoving(() -> stats.received.sum() >= expected, stats.receivedAll::sum, timeout);
    }

    private static void waitWhileMoving(java.util.function.BooleanSupplier done, java.util.function.LongSupplier counter,
            long stallNanos) {
        long last = counter.getAsLong();
        long lastMove = System.nanoTime();
        while (!done.getAsBoolean() && System.nanoTime() - lastMove < stallNanos) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            long now = counter.getAsLong();
            if (now != last) {
                last = now;
                lastMove = System.nanoTime();
            }
        }
    }

    private void cleanUp() {
        producers.forEach(p -> closeQuietly(p, "producer"));
        // many topics mean many consumers: close them and delete the topics in parallel
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(16, consumers.size())),
                r -> daemon(r, "bench-cleanup"));
        try {
            awaitAll(pool, consumers.stream().<Runnable>map(c -> () -> closeQuietly(c, "consumer")).toList());
            awaitAll(pool, topics.stream().<Runnable>map(topic -> () -> {
                try {
                    driver.deleteTopic(topic);
                } catch (Exception e) {
                    log.debug("Could not delete {} on {}", topic, driver.broker(), e);
                }
            }).toList());
        } finally {
            pool.shutdownNow();
        }
        closeQuietly(driver, "driver");
    }

    private static void awaitAll(ExecutorService pool, List<Runnable> tasks) {
        List<Future<?>> futures = tasks.stream().<Future<?>>map(pool::submit).toList();
        for (Future<?> f : futures) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                log.debug("Clean-up step failed", e);
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable, String what) {
        try {
            closeable.close();
        } catch (Exception e) {
            log.debug("Closing a {} failed", what, e);
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** One sender thread: its producers in turn, on its share of the rate and of the message count. */
    private final class Sender implements Runnable {
        private final List<BenchProducer> mine;
        private final RateLimiter limiter;
        private final long quota;
        private final long startNanos;
        private final long measureStartNanos;
        private final long measureEndNanos;
        private final SendWindow window;

        Sender(List<BenchProducer> mine, double rate, long quota, long startNanos, long measureStartNanos, long measureEndNanos) {
            this.mine = mine;
            this.limiter = rate > 0 ? new RateLimiter(rate, startNanos) : null;
            this.quota = quota;
            this.startNanos = startNanos;
            this.measureStartNanos = measureStartNanos;
            this.measureEndNanos = measureEndNanos;
            this.window = new SendWindow(workload.synchronous() ? 1 : workload.maxOutstanding());
        }

        @Override
        public void run() {
            LockSupport.parkNanos(startNanos - System.nanoTime());
            byte[] payload = workload.payload().bytes();
            long sequence = 0;
            long measuredSent = 0;
            while (!aborted) {
                long intended = limiter != null ? limiter.awaitNext() : System.nanoTime();
                boolean measured = intended >= measureStartNanos;
                if (intended >= measureEndNanos || (workload.countBased() && measured && measuredSent >= quota)) {
                    return;
                }
                if (!acquire()) {
                    stats.firstError = "no acknowledgement from " + driver.broker() + " for " + ACK_STALL.toSeconds() + " s";
                    aborted = true;
                    return;
                }
                long sentNanos = System.nanoTime();
                long sendMicros = BenchClock.toMicros(limiter != null ? intended : sentNanos);
                if (measured) {
                    measuredSent++;
                    stats.sent.increment();
                    stats.publishDelay.record((sentNanos - intended) / 1_000);
                }
                stats.outstanding.incrementAndGet();
                // the send time in the payload's first 8 bytes: the same copy and stamp on every side
                mine.get((int) (sequence % mine.size())).send(workload.keyDistribution().key(sequence),
                        SendStamp.stamped(payload, sendMicros), sendMicros,
                        error -> {
                            stats.acknowledged(sendMicros, sentNanos, error);
                            window.release();
                        });
                sequence++;
            }
        }

        private boolean acquire() {
            try {
                return window.acquire(ACK_STALL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
