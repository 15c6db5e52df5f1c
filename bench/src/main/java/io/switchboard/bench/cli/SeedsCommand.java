package io.switchboard.bench.cli;

import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code seeds [name...]}: the broker studies. */
@Command(name = "seeds", mixinStandardHelpOptions = true,
        description = {"Runs the seed studies (bench/workloads/seeds, also inside the jar): seed-003, seed-004, thesis-002,",
            "seed-001, seed-000. The shortened grids take at most 20 minutes on 2 cores; --full runs the full grids."})
final class SeedsCommand extends SuiteCommand {

    @Parameters(arity = "0..*", paramLabel = "NAME", description = "Only seeds whose file name starts with one of these.")
    List<String> only = new ArrayList<>();

    @Override
    List<Workload> workloads() {
        List<Workload> all = new ArrayList<>();
        for (String file : Seeds.files()) {
            if (only.isEmpty() || only.stream().anyMatch(file::startsWith)) {
                all.addAll(WorkloadParser.parseResource(Seeds.DIRECTORY + file, options.full));
            }
        }
        return all;
    }

    @Override
    List<String> commandLine() {
        List<String> line = new ArrayList<>(List.of("seeds"));
        line.addAll(only);
        return line;
    }
}
