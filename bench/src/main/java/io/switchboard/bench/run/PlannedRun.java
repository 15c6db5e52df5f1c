package io.switchboard.bench.run;

import io.switchboard.bench.workload.Workload;

/**
 * One run in a suite's plan.
 *
 * @param workload the workload (grid point, time scale applied)
 * @param broker the broker id
 * @param mode {@code sdk} or {@code native}
 */
public record PlannedRun(Workload workload, String broker, String mode) {

    /** A rough guess of how long it takes, in seconds, for the progress bar. */
    public double estimatedSeconds() {
        double setup = 2 + workload.topics() * 0.05;
        double measure = workload.countBased()
                ? workload.messageCount() / (workload.maxRate() ? 30_000d : workload.producerRate())
                : workload.duration().toMillis() / 1000d;
        return setup + workload.warmup().toMillis() / 1000d + measure + 1;
    }
}
