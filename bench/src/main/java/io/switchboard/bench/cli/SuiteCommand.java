package io.switchboard.bench.cli;

import io.switchboard.bench.env.BrokerEnvironment;
import io.switchboard.bench.report.ConsoleReport;
import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.run.PlannedRun;
import io.switchboard.bench.run.ProgressBar;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.run.SuiteRunner;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** Shared by {@code run} and {@code seeds}: plan, start brokers, run with a progress bar, report. */
abstract class SuiteCommand implements Callable<Integer> {

    private static final Set<String> KNOWN_BROKERS = Set.of("kafka", "rabbitmq", "rocketmq", "memory");

    @Mixin
    SuiteOptions options;

    /** The workloads to run (grids expanded; the time scale is applied here). */
    abstract List<Workload> workloads();

    @Override
    public Integer call() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        for (String broker : options.brokers) {
            if (!KNOWN_BROKERS.contains(broker)) {
                err.println("Unknown broker '" + broker + "' in --brokers; choose from " + new TreeSet<>(KNOWN_BROKERS));
                return 2;
            }
        }
        if (!(options.timeScale > 0)) {
            err.println("--time-scale must be above 0 but was " + options.timeScale + "; try 0.5 for a quicker run");
            return 2;
        }
        if (options.repeat < 1) {
            err.println("--repeat must be 1 or more but was " + options.repeat + "; try 3 for fixed-rate latency points");
            return 2;
        }
        if (options.jvmWarmupSeconds < 0) {
            err.println("--jvm-warmup must be 0 (none) or more seconds but was " + options.jvmWarmupSeconds + "; try 20");
            return 2;
        }
        if (options.heapProbeSeconds < 0) {
            err.println("--heap-probe-seconds must be 0 (no probes) or more but was " + options.heapProbeSeconds
                    + "; try 60 for a soak run");
            return 2;
        }
        List<Workload> workloads;
        try {
            workloads = repeated(workloads().stream().map(w -> w.scaled(options.timeScale)).toList(), options.repeat);
        } catch (WorkloadException e) {
            err.println(e.getMessage());
            return 2;
        }
        List<PlannedRun> planned = SuiteRunner.plan(workloads, options.brokers, options.sdkOnly, options.extraModes());
        List<PlannedRun> plan = modes(planned, err);
        if (plan == null) {
            return 2;
        }
        if (plan.isEmpty()) {
            err.println("Nothing to run: no workload is meant for the brokers " + options.brokers
                    + "; leave out --brokers, or pick brokers the workloads list");
            return 2;
        }
        Set<String> brokers = new TreeSet<>();
        plan.forEach(p -> brokers.add(p.broker()));
        ProgressBar progress = new ProgressBar(err, !options.noProgress && System.console() != null, plan);
        out.printf(Locale.ROOT, "%d runs (%d workload points) on %s; estimated %.1f min%n", plan.size(), workloads.size(),
                brokers, progress.estimatedSeconds() / 60);
        Path dir = options.out != null ? options.out
                : Path.of("bench-results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        List<RunResult> results;
        try (BrokerEnvironment env = BrokerEnvironment.start(brokers, options.kafkaBootstrap, options.rabbitUri,
                options.rocketMqNameServer, options.brokersInChild, out)) {
            String command = String.join(" ", commandLine()) + (options.brokersInChild ? " --brokers-in-child" : "");
            List<RunResult> sofar = new ArrayList<>();
            // the files are rewritten after every run, so an interrupted suite keeps what it measured
            results = new SuiteRunner(env.endpoints(), java.time.Duration.ofSeconds(options.heapProbeSeconds),
                    options.jfr, options.jfrSettings, java.time.Duration.ofSeconds(options.jvmWarmupSeconds))
                    .measuringBrokerProcesses(env.brokerPids()).run(plan, progress, r -> {
                sofar.add(r);
                ReportFiles.write(dir, sofar, command + " (partial: " + sofar.size() + " of " + plan.size() + " runs)");
            });
            progress.close();
            ConsoleReport.print(out, results);
            ReportFiles.write(dir, results, command);
            out.println();
            out.println("Wrote " + dir.resolve("results.csv") + ", " + dir.resolve("results.json") + " and "
                    + dir.resolve("report.html"));
            out.flush();
        } catch (IllegalStateException e) {
            progress.close();
            err.println(e.getMessage());
            return 3;
        }
        return results.stream().allMatch(RunResult::ok) ? 0 : 1;
    }

    /** Each workload point {@code times} times in a row, the repetitions after the first named as such. */
    static List<Workload> repeated(List<Workload> workloads, int times) {
        List<Workload> all = new ArrayList<>();
        for (Workload w : workloads) {
            all.add(w);
            for (int n = 2; n <= times; n++) {
                all.add(w.repetition(n));
            }
        }
        return all;
    }

    /** The command as typed, for the report. */
    abstract List<String> commandLine();

    /** The plan narrowed to {@code --modes}; null (with the error told) when a mode is not in it. */
    private List<PlannedRun> modes(List<PlannedRun> plan, PrintStream err) {
        if (options.modes.isEmpty()) {
            return plan;
        }
        Set<String> planned = new TreeSet<>();
        plan.forEach(p -> planned.add(p.mode()));
        List<String> unknown = options.modes.stream().filter(m -> !planned.contains(m)).toList();
        if (!unknown.isEmpty()) {
            err.println("--modes " + unknown + " not in this plan, whose modes are " + planned
                    + "; pick from those (add --none-envelope for sdk-none, --native-envelope for native-ce)");
            return null;
        }
        return plan.stream().filter(p -> options.modes.contains(p.mode())).toList();
    }
}
