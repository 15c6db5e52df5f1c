package io.switchboard.bench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code switchboard-bench}: runs broker benchmarks through Switchboard and through each broker's
 * native client, side by side. {@code java -jar switchboard-bench.jar --help}.
 */
@Command(name = "switchboard-bench", mixinStandardHelpOptions = true, version = "switchboard-bench 0.1.0-SNAPSHOT",
        description = {
            "Runs messaging workloads on Kafka, RabbitMQ, RocketMQ (and the in-memory broker) twice, interleaved:",
            "through Switchboard and through the broker's native client, and reports both with their ratio.",
            "Kafka and RocketMQ start in-process (or each in a child JVM: --brokers-in-child) unless an external cluster is",
            "given; RabbitMQ is the local server."},
        subcommands = {RunCommand.class, SeedsCommand.class, ListCommand.class, CommandLine.HelpCommand.class})
public final class BenchMain implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the CLI and exits with its code. */
    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the CLI and returns its exit code (for tests). */
    public static int execute(String... args) {
        return new CommandLine(new BenchMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
