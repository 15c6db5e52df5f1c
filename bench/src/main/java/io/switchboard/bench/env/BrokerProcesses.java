package io.switchboard.bench.env;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/** Finds the process of a broker on this machine that the bench did not start. */
final class BrokerProcesses {

    private BrokerProcesses() {}

    /**
     * The RabbitMQ server's Erlang VM ({@code beam.smp} booting {@code rabbit}) when {@code uri} points at
     * this machine and exactly one such process runs; otherwise empty (its CPU is then not reported).
     */
    static OptionalLong localRabbitServer(String uri) {
        String host;
        try {
            host = URI.create(uri).getHost();
        } catch (IllegalArgumentException e) {
            return OptionalLong.empty();
        }
        if (host == null || !(host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]"))) {
            return OptionalLong.empty();
        }
        List<ProcessHandle> servers = ProcessHandle.allProcesses().filter(BrokerProcesses::isRabbitServer).toList();
        return servers.size() == 1 ? OptionalLong.of(servers.get(0).pid()) : OptionalLong.empty();
    }

    /**
     * An Erlang VM started with {@code -s rabbit boot} (rabbitmqctl's own VMs boot something else). The
     * arguments come from {@code /proc/<pid>/cmdline}: the JDK's {@code ProcessHandle.Info.arguments()}
     * stops at the first empty argument, and the server's command line has one ({@code -pa ""}) before them.
     */
    static boolean isRabbitServer(ProcessHandle process) {
        if (!process.info().command().map(c -> c.endsWith("/beam.smp")).orElse(false)) {
            return false;
        }
        List<String> args;
        try {
            args = List.of(new String(Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline")),
                    StandardCharsets.UTF_8).split("\0", -1));
        } catch (IOException | SecurityException e) {
            return false; // gone, or not Linux
        }
        for (int i = 0; i + 2 < args.size(); i++) {
            if (args.get(i).equals("-s") && args.get(i + 1).equals("rabbit") && args.get(i + 2).equals("boot")) {
                return true;
            }
        }
        return false;
    }
}
