package io.switchboard.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SeedsSmokeTest {

    @Test
    @DisplayName("every seed workload in the jar parses, shortened and full")
    void seedsParse() {
        assertThat(Seeds.files()).isNotEmpty();
        for (String file : Seeds.files()) {
            List<Workload> shortGrid = WorkloadParser.parseResource(Seeds.DIRECTORY + file, false);
            List<Workload> fullGrid = WorkloadParser.parseResource(Seeds.DIRECTORY + file, true);
            assertThat(shortGrid).as(file).isNotEmpty();
            assertThat(fullGrid.size()).as(file).isGreaterThanOrEqualTo(shortGrid.size());
            assertThat(shortGrid.get(0).study().present()).as(file + " names its study").isTrue();
        }
    }

    @Test
    @DisplayName("a tiny workload runs on the memory broker after an unmeasured JVM warm-up, and writes CSV, JSON and HTML")
    void tinyRunOnMemory(@TempDir Path dir) throws Exception {
        Path workload = dir.resolve("tiny.yaml");
        Files.writeString(workload, """
                name: tiny
                brokers: [memory]
                topics: 2
                partitionsPerTopic: 2
                messageSize: 64
                subscriptionsPerTopic: 2
                producerRate: 1000
                duration: 1s
                warmup: 500ms
                keyDistribution: KEY_ROUND_ROBIN
                study: {source: test, figure: none, conditions: none}
                """);
        Path out = dir.resolve("out");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true));
        int exit;
        try {
            exit = BenchMain.execute("run", workload.toString(), "--out", out.toString(), "--no-progress", "--jvm-warmup", "1",
                    "--modes", "sdk");
        } finally {
            System.setErr(saved);
        }
        assertThat(exit).isZero();
        assertThat(err.toString()).contains("JVM warm-up: tiny memory/sdk for 1 s, not measured");
        assertThat(err.toString()).as("the line a profiler attached from outside waits for")
                .contains("Measuring: tiny memory/sdk");
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        JsonNode run = json.get("runs").get(0);
        assertThat(run.get("broker").asText()).isEqualTo("memory");
        assertThat(run.get("mode").asText()).isEqualTo("sdk");
        assertThat(run.get("acked").asLong()).isPositive();
        assertThat(run.get("received").asLong()).isEqualTo(run.get("expected").asLong());
        assertThat(run.get("endToEndMs").get("count").asLong()).isEqualTo(run.get("received").asLong());
        assertThat(Files.readAllLines(out.resolve("results.csv"))).hasSize(2);
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("new Chart(").contains("\"workload\":\"tiny\"").doesNotContain("/*CHART_JS*/");
        assertThat(html.length()).isGreaterThan(150_000); // Chart.js inlined
    }

    @Test
    @DisplayName("--repeat runs every point again as a point of its own, the modes' order alternating")
    void repeatedPoints() {
        List<Workload> seed = WorkloadParser.parseResource(Seeds.DIRECTORY + Seeds.files().get(0), false).subList(0, 1);
        List<Workload> three = SuiteCommand.repeated(seed, 3);
        assertThat(three).extracting(Workload::variant).containsExactly(seed.get(0).variant(),
                (seed.get(0).variant() + " run 2").trim(), (seed.get(0).variant() + " run 3").trim());
        assertThat(three).extracting(Workload::label).doesNotHaveDuplicates();
        List<io.switchboard.bench.run.PlannedRun> plan = io.switchboard.bench.run.SuiteRunner.plan(three, List.of("kafka"),
                false, false);
        assertThat(plan).extracting(io.switchboard.bench.run.PlannedRun::mode)
                .containsExactly("sdk", "native", "native", "sdk", "sdk", "native");
    }

    @Test
    @DisplayName("--modes with a mode the plan does not have ends with exit code 2, naming the plan's modes")
    void unknownMode(@TempDir Path dir) throws Exception {
        Path workload = dir.resolve("tiny.yaml");
        Files.writeString(workload, "name: tiny\nbrokers: [memory]\nduration: 1s\nstudy: {source: test, figure: none, conditions: none}\n");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true));
        int exit;
        try {
            exit = BenchMain.execute("run", workload.toString(), "--out", dir.toString(), "--no-progress", "--modes", "sdk-none");
        } finally {
            System.setErr(saved);
        }
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--modes [sdk-none] not in this plan, whose modes are [sdk]").contains("--none-envelope");
    }

    @Test
    @DisplayName("a bad workload file ends with exit code 2")
    void badWorkload(@TempDir Path dir) throws Exception {
        Path workload = dir.resolve("bad.yaml");
        Files.writeString(workload, "name: bad\nduration: 1s\ntopic: 3\n");
        assertThat(BenchMain.execute("run", workload.toString(), "--out", dir.toString(), "--no-progress")).isEqualTo(2);
    }

    @Test
    @DisplayName("a broker that cannot be reached ends the run with exit code 3 and says how to fix it")
    void unreachableBrokerExitsThree() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true));
        int exit;
        try {
            exit = BenchMain.execute("seeds", "seed-004", "--brokers", "kafka", "--kafka-bootstrap", "127.0.0.1:1", "--no-progress");
        } finally {
            System.setErr(saved);
        }
        assertThat(exit).isEqualTo(3);
        assertThat(err.toString()).contains("Kafka is not reachable at 127.0.0.1:1").contains("--kafka-bootstrap");
    }
}
