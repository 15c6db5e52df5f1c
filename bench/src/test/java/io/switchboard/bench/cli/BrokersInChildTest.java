package io.switchboard.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.bench.env.BrokerChildMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --brokers-in-child}: a real broker in a JVM of its own, a short run on it, the child gone afterwards. */
class BrokersInChildTest {

    private static final Pattern CHILD = Pattern.compile("started in a child JVM \\(pid (\\d+)");
    private static final String OLD_HEADER_END = "heap_slope_mib_min,jvm_cpu_us_per_msg,error";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka", "rocketmq"})
    @DisplayName("a short run with the broker in a child JVM: rows with messages, the child's CPU per message, no child left")
    void shortRunWithBrokerInChild(String broker, @TempDir Path dir) throws Exception {
        Path workload = dir.resolve("tiny.yaml");
        Files.writeString(workload, """
                name: tiny-child
                brokers: [%s]
                messageSize: 64
                producerRate: 1000
                duration: 2s
                warmup: 1s
                drainTimeout: 10s
                study: {source: test, figure: none, conditions: none}
                """.formatted(broker));
        Path out = dir.resolve("out");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(console, true));
        FutureTask<Integer> bench = new FutureTask<>(() -> BenchMain.execute("run", workload.toString(), "--brokers", broker,
                "--brokers-in-child", "--sdk-only", "--client-cost", "--jvm-warmup", "0", "--no-progress", "--out", out.toString()));
        long pid;
        boolean aliveDuring;
        java.util.Optional<Long> parentDuring;
        String commandDuring;
        String[] argumentsDuring;
        int exit;
        Thread runner = new Thread(bench, "bench-in-child-test");
        runner.setDaemon(true);
        try {
            runner.start();
            pid = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                    .until(() -> childPid(console.toString(), bench), Objects::nonNull);
            ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
            aliveDuring = child.isAlive();
            parentDuring = child.parent().map(ProcessHandle::pid);
            commandDuring = child.info().command().orElse("");
            // the JDK's ProcessHandle.Info reads only the start of a long command line (the class path); /proc has it all
            argumentsDuring = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0");
        } finally {
            // whatever failed above, the bench ends by itself and takes its child with it: wait for that
            exit = bench.get(120, TimeUnit.SECONDS);
            System.setOut(saved);
        }
        assertThat(aliveDuring).as("the broker JVM while the bench runs").isTrue();
        assertThat(parentDuring).contains(ProcessHandle.current().pid());
        assertThat(commandDuring).endsWith("java");
        assertThat(argumentsDuring).contains(BrokerChildMain.class.getName(), broker);
        assertThat(exit).as(console.toString()).isZero();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the broker JVM after the bench").isFalse();

        List<String> lines = Files.readAllLines(out.resolve("results.csv"));
        assertThat(lines).as("sdk and sdk-cost").hasSize(3);
        List<String> header = Arrays.asList(lines.get(0).split(",", -1));
        assertThat(lines.get(0)).contains(OLD_HEADER_END + ",broker_cpu_us_per_msg");
        assertThat(header.get(header.size() - 1)).isEqualTo("jit_ms");
        assertThat(header.get(header.size() - 2)).isEqualTo("client_cpu_us_per_msg");
        String[] row = lines.get(1).split(",", -1);
        String[] cost = lines.get(2).split(",", -1);
        assertThat(cost[header.indexOf("mode")]).isEqualTo("sdk-cost");
        assertThat(Double.parseDouble(cost[header.indexOf("client_cpu_us_per_msg")])).as("the comparison's client CPU per message")
                .isPositive();
        assertThat(Double.parseDouble(cost[header.indexOf("jvm_cpu_us_per_msg")])).as("the JVM's, beside it").isPositive();
        assertThat(row).hasSameSizeAs(header.toArray());
        assertThat(row[header.indexOf("error")]).isEmpty();
        assertThat(Long.parseLong(row[header.indexOf("received")])).isPositive();
        assertThat(Double.parseDouble(row[header.indexOf("jvm_cpu_us_per_msg")])).isPositive();
        assertThat(Double.parseDouble(row[header.indexOf("broker_cpu_us_per_msg")])).as("the child's CPU per message").isPositive();
        assertThat(Double.parseDouble(row[header.indexOf("jit_ms")])).as("the JIT's time in the measured window").isNotNegative();
        assertThat(Files.readString(out.resolve("results.json"))).contains("\"brokerCpuMicrosPerMessage\"")
                .contains("\"clientCpuMicrosPerMessage\"")
                .contains("--brokers-in-child");
    }

    /** The child's pid once the bench said it, null before; fails at once when the bench ended without it. */
    private static Long childPid(String console, FutureTask<Integer> bench) throws Exception {
        Matcher m = CHILD.matcher(console);
        if (m.find()) {
            return Long.parseLong(m.group(1));
        }
        if (bench.isDone()) {
            throw new AssertionError("the bench ended (exit " + bench.get() + ") without starting a child JVM: " + console);
        }
        return null;
    }
}
