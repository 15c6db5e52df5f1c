package io.switchboard.bench.run;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.driver.BrokerEndpoints;
import io.switchboard.bench.driver.Drivers;
import io.switchboard.bench.workload.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * Plans and runs a suite: every workload (grid point) on every broker it is meant for, once
 * through Switchboard and once through the native client, back to back. The order of the two
 * alternates from one point to the next so that neither side always runs on a warmer broker.
 *
 * <p>Before a broker's first measured run, its first workload runs once in every mode of the plan,
 * unmeasured, for the JVM warm-up time ({@code --jvm-warmup}): the in-process brokers share the
 * bench's JVM, so without it whichever side ran first would also pay for compiling the broker's
 * and the clients' code (on main 3c763af the first Kafka run measured 67k msg/s through the SDK
 * and the same run later in the same JVM 114-139k). With a warm-up, each measured run also waits
 * for the JIT compilers to be idle first (they fall minutes behind on two busy cores).
 */
public final class SuiteRunner {

    private final BrokerEndpoints endpoints;
    private final Duration heapProbeInterval;
    private final Path jfrDir;
    private final String jfrSettings;
    private final Duration jvmWarmup;
    private static final Duration MAX_JIT_WAIT = Duration.ofSeconds(60);
    /** Warm-up rounds of a mode at most, while the JIT keeps compiling. */
    static final int MAX_WARMUP_ROUNDS = 5;
    /** JIT time in a warm-up round, as a share of its length, below which a mode counts as warm. */
    static final int SETTLED_JIT_PERCENT = 5;
    private final java.util.Set<String> warmed = new java.util.HashSet<>();
    private java.util.Map<String, Long> brokerPids = java.util.Map.of();
    private final String suiteId = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36);
    private int counter;

    /**
     * A runner on these brokers.
     *
     * @param heapProbeInterval as in {@link WorkloadRunner}
     * @param jfrDir where to write a Java Flight Recording of each run, or null for none
     * @param jfrSettings the JDK's recording settings to use ({@code default} or {@code profile})
     * @param jvmWarmup how long each mode of a broker runs unmeasured before the broker's first measured run; zero for none
     */
    public SuiteRunner(BrokerEndpoints endpoints, Duration heapProbeInterval, Path jfrDir, String jfrSettings,
            Duration jvmWarmup) {
        this.endpoints = endpoints;
        this.heapProbeInterval = heapProbeInterval;
        this.jfrDir = jfrDir;
        this.jfrSettings = jfrSettings;
        if (jfrDir != null) {
            try {
                recording().close();
            } catch (IOException | ParseException e) {
                throw new IllegalArgumentException("--jfr-settings '" + jfrSettings + "' is not one of the JDK's recording "
                        + "settings; use default, profile or cpu (" + e.getMessage() + ")", e);
            }
        }
        this.jvmWarmup = jvmWarmup;
    }

    /**
     * Measures the CPU time of these brokers' processes too (the child JVMs of {@code --brokers-in-child},
     * the local RabbitMQ server), into each run's {@link RunResult#brokerCpuMicrosPerMessage()}.
     *
     * @param pids broker id to process id
     * @return this runner
     */
    public SuiteRunner measuringBrokerProcesses(java.util.Map<String, Long> pids) {
        this.brokerPids = java.util.Map.copyOf(pids);
        return this;
    }

    /**
     * The runs, in order.
     *
     * @param requested the brokers asked for on the command line, or empty for each workload's own
     * @param sdkOnly only through Switchboard, no native runs
     * @param nativeEnvelope also a native run carrying the SDK's CloudEvents headers (mode native-ce)
     */
    public static List<PlannedRun> plan(List<Workload> workloads, List<String> requested, boolean sdkOnly,
            boolean nativeEnvelope) {
        return plan(workloads, requested, sdkOnly, nativeEnvelope, false);
    }

    /**
     * The runs, in order, with the SDK's compact-envelope runs too when asked.
     *
     * @param compactEnvelope also an SDK run publishing the compact envelope (mode sdk-compact)
     */
    public static List<PlannedRun> plan(List<Workload> workloads, List<String> requested, boolean sdkOnly,
            boolean nativeEnvelope, boolean compactEnvelope) {
        return plan(workloads, requested, sdkOnly, Drivers.extras(nativeEnvelope, compactEnvelope, false));
    }

    /**
     * The runs, in order, with the extra modes asked for ({@link Drivers#modes(String, java.util.Set)}).
     *
     * @param extras extra modes: {@code native-ce}, {@code sdk-compact}, {@code native-batch}, {@code spring}
     */
    public static List<PlannedRun> plan(List<Workload> workloads, List<String> requested, boolean sdkOnly,
            java.util.Set<String> extras) {
        List<PlannedRun> plan = new ArrayList<>();
        int point = 0;
        for (Workload workload : workloads) {
            for (String broker : brokersFor(workload, requested)) {
                List<String> modes = new ArrayList<>(Drivers.modes(broker, extras));
                if (sdkOnly) {
                    modes.retainAll(List.of("sdk", "sdk-compact", "sdk-none", "sdk-cost"));
                }
                if (point % 2 == 1) {
                    java.util.Collections.reverse(modes);
                }
                modes.forEach(mode -> plan.add(new PlannedRun(workload, broker, mode)));
            }
            point++;
        }
        return plan;
    }

    /** The brokers a workload runs on: its own list, narrowed to the requested ones when any are. */
    public static List<String> brokersFor(Workload workload, List<String> requested) {
        if (workload.brokers().isEmpty()) {
            return requested.isEmpty() ? List.of("kafka", "rabbitmq", "rocketmq") : requested;
        }
        return requested.isEmpty() ? workload.brokers()
                : workload.brokers().stream().filter(requested::contains).toList();
    }

    /** Runs the plan, telling {@code progress} and handing each result to {@code results} as it comes. */
    public List<RunResult> run(List<PlannedRun> plan, ProgressBar progress, Consumer<RunResult> results) {
        List<RunResult> all = new ArrayList<>();
        for (PlannedRun run : plan) {
            warmUp(run.broker(), plan, progress);
            awaitIdleJit(progress);
            if (!jvmWarmup.isZero()) { // marks where the JVM warm-up ended, for a profiler attached from outside
                progress.note("Measuring: " + run.workload().name() + " " + run.broker() + "/" + run.mode());
            }
            progress.start(run);
            RunResult result = runOne(run, progress);
            progress.finish(result);
            results.accept(result);
            all.add(result);
        }
        return all;
    }

    /**
     * Runs the broker's first planned workload in each of its planned modes, unmeasured, unless that was done already:
     * for {@link #jvmWarmup}, and again (up to {@value #MAX_WARMUP_ROUNDS} rounds in all) while the JIT still compiled
     * more than {@value #SETTLED_JIT_PERCENT}% of a round's length. One round was not enough on two busy cores: C2
     * compiles one method in up to 2 s there, HotSpot drops the tasks of methods that went cold from its queue when the
     * load stops, and the first measured run compiled them again, 9.4 s of JIT in a 9 s window after a 20 s warm-up (4.6 s
     * after 45 s; Kafka, 1 KiB, one JVM per mode, JFR), against 0.03 s in the run after it.
     */
    private void warmUp(String broker, List<PlannedRun> plan, ProgressBar progress) {
        if (jvmWarmup.isZero() || !warmed.add(broker)) {
            return;
        }
        List<PlannedRun> runs = plan.stream().filter(p -> p.broker().equals(broker)).toList();
        Workload first = runs.get(0).workload().forWarmUp(jvmWarmup);
        for (String mode : runs.stream().map(PlannedRun::mode).distinct().toList()) {
            for (int round = 1; round <= MAX_WARMUP_ROUNDS; round++) {
                progress.note("JVM warm-up: " + first.name() + " " + broker + "/" + mode + " for " + jvmWarmup.toSeconds()
                        + " s, not measured" + (round > 1 ? " (round " + round + ")" : ""));
                RunResult result = runOne(new PlannedRun(first, broker, mode), RunProgress.NONE, false);
                if (!result.ok()) {
                    progress.note("JVM warm-up of " + broker + "/" + mode + " failed (" + result.error()
                            + "); measuring anyway");
                    break;
                }
                if (!(result.jitMillis() > jvmWarmup.toMillis() * SETTLED_JIT_PERCENT / 100.0)) {
                    break;
                }
                progress.note(String.format(java.util.Locale.ROOT, "JIT: compiled %.0f ms in the warm-up's %d s%s",
                        result.jitMillis(), jvmWarmup.toSeconds(), round < MAX_WARMUP_ROUNDS ? "" : ", measuring anyway"));
            }
        }
    }

    /**
     * With a JVM warm-up, waits before a measured run until the JIT compilers are idle ({@link JitActivity}), for up to
     * three warm-up lengths and at most a minute: the compile tasks the warm-up and the last run queued then run on
     * idle cores rather than in the next run's measured window.
     */
    private void awaitIdleJit(ProgressBar progress) {
        if (jvmWarmup.isZero()) {
            return;
        }
        Duration max = jvmWarmup.multipliedBy(3).compareTo(MAX_JIT_WAIT) < 0 ? jvmWarmup.multipliedBy(3) : MAX_JIT_WAIT;
        long before = JitActivity.millis();
        try {
            Duration waited = JitActivity.awaitIdle(max);
            if (waited.toSeconds() >= 2) {
                progress.note("JIT: waited " + waited.toSeconds() + " s for the compilers to go idle (" + (JitActivity.millis()
                        - before) + " ms compiling)" + (waited.compareTo(max) >= 0 ? ", measuring anyway" : ""));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private RunResult runOne(PlannedRun run, RunProgress progress) {
        return runOne(run, progress, true);
    }

    private RunResult runOne(PlannedRun run, RunProgress progress, boolean record) {
        String runId = suiteId + "-" + (counter++) + run.mode().substring(0, 1);
        BenchDriver driver;
        try {
            driver = Drivers.create(run.broker(), run.mode(), run.workload(), endpoints, runId.toLowerCase(Locale.ROOT));
        } catch (Exception e) {
            return RunResult.failed(run.workload(), run.broker(), run.mode(), "could not connect: " + e);
        }
        WorkloadRunner runner = new WorkloadRunner(run.workload(), driver, runId, progress, heapProbeInterval,
                brokerPids.getOrDefault(run.broker(), CpuMeter.NO_PROCESS));
        if (jfrDir == null || !record) {
            return runner.run();
        }
        Path file = jfrDir.resolve((run.workload().name() + "-" + run.workload().variant()).replaceAll("[^A-Za-z0-9._=-]+", "_")
                + "-" + run.broker() + "-" + run.mode() + ".jfr");
        try (Recording recording = recording()) {
            Files.createDirectories(jfrDir);
            recording.setToDisk(true);
            recording.start();
            RunResult result = runner.run();
            recording.stop();
            recording.dump(file);
            return result;
        } catch (IOException | ParseException e) {
            throw new java.io.UncheckedIOException(new IOException("Could not record " + file
                    + " with Java Flight Recorder; check that the directory is writable: " + e, e));
        }
    }

    /** Method samples every 2 ms on top of the JDK's {@code default} settings: enough samples for a short run, little overhead. */
    private static final String CPU_SETTINGS = "cpu";

    private Recording recording() throws IOException, ParseException {
        if (!CPU_SETTINGS.equals(jfrSettings)) {
            return new Recording(Configuration.getConfiguration(jfrSettings));
        }
        Recording recording = new Recording(Configuration.getConfiguration("default"));
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(2));
        return recording;
    }
}
