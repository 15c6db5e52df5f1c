package io.switchboard.bench.cli;

import io.switchboard.Switchboard;
import io.switchboard.bench.driver.Drivers;
import io.switchboard.bench.run.PlannedRun;
import io.switchboard.bench.run.SuiteRunner;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code list}: the seed workloads and the brokers this jar can drive. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the seed workloads and the available brokers.")
final class ListCommand implements Callable<Integer> {

    @Option(names = "--full", description = "Count the full grids.")
    boolean full;

    @Override
    public Integer call() {
        System.out.printf(Locale.ROOT, "%-28s %-24s %7s %6s %8s  %s%n", "file", "name", "points", "runs", "est.min", "brokers");
        double total = 0;
        for (String file : Seeds.files()) {
            List<Workload> points = WorkloadParser.parseResource(Seeds.DIRECTORY + file, full);
            List<PlannedRun> plan = SuiteRunner.plan(points, List.of(), false, false);
            double minutes = plan.stream().mapToDouble(PlannedRun::estimatedSeconds).sum() / 60;
            total += minutes;
            System.out.printf(Locale.ROOT, "%-28s %-24s %7d %6d %8.1f  %s%n", file, points.get(0).name(), points.size(),
                    plan.size(), minutes, SuiteRunner.brokersFor(points.get(0), List.of()));
        }
        System.out.printf(Locale.ROOT, "%-28s %-24s %7s %6s %8.1f%n", "total", "", "", "", total);
        System.out.println();
        System.out.println("Adapters on the classpath (SDK mode): " + Switchboard.availableBrokers());
        System.out.println("Native drivers: kafka, rabbitmq, rocketmq (memory runs through the SDK only: "
                + Drivers.modes("memory") + ")");
        return 0;
    }
}
