package io.switchboard.bench.cli;

import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code run <workload.yaml...>}. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs workload files (YAML; see bench/README.md for the fields).")
final class RunCommand extends SuiteCommand {

    @Parameters(arity = "1..*", paramLabel = "WORKLOAD.yaml", description = "Workload files.")
    List<Path> files;

    @Override
    List<Workload> workloads() {
        List<Workload> all = new ArrayList<>();
        files.forEach(f -> all.addAll(WorkloadParser.parse(f, options.full)));
        return all;
    }

    @Override
    List<String> commandLine() {
        List<String> line = new ArrayList<>(List.of("run"));
        files.forEach(f -> line.add(f.toString()));
        return line;
    }
}
