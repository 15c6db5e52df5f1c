package io.switchboard.bench.run;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.driver.BrokerEndpoints;
import io.switchboard.bench.driver.Drivers;
import io.switchboard.bench.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Plans and runs a suite: every workload (grid point) on every broker it is meant for, once
 * through Switchboard and once through the native client, back to back. The order of the two
 * alternates from one point to the next so that neither side always runs on a warmer broker.
 */
public final class SuiteRunner {

    private final BrokerEndpoints endpoints;
    private final String suiteId = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36);
    private int counter;

    /** A runner on these brokers. */
    public SuiteRunner(BrokerEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    /**
     * The runs, in order.
     *
     * @param requested the brokers asked for on the command line, or empty for each workload's own
     */
    public static List<PlannedRun> plan(List<Workload> workloads, List<String> requested) {
        List<PlannedRun> plan = new ArrayList<>();
        int point = 0;
        for (Workload workload : workloads) {
            for (String broker : brokersFor(workload, requested)) {
                List<String> modes = new ArrayList<>(Drivers.modes(broker));
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
            progress.start(run);
            RunResult result = runOne(run, progress);
            progress.finish(result);
            results.accept(result);
            all.add(result);
        }
        return all;
    }

    private RunResult runOne(PlannedRun run, RunProgress progress) {
        String runId = suiteId + "-" + (counter++) + run.mode().substring(0, 1);
        BenchDriver driver;
        try {
            driver = Drivers.create(run.broker(), run.mode(), run.workload(), endpoints, runId.toLowerCase(Locale.ROOT));
        } catch (Exception e) {
            return RunResult.failed(run.workload(), run.broker(), run.mode(), "could not connect: " + e);
        }
        return new WorkloadRunner(run.workload(), driver, runId, progress).run();
    }
}
