package io.switchboard.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The demo in Spring AOT mode on the JVM: the build's process-aot generated its context
 * initializers into target/classes; this starts the timed demo in a JVM of its own with
 * {@code -Dspring.aot.enabled=true} (Kafka in-process, the local RabbitMQ) and checks that the
 * listeners received orders on both brokers. A native image would need GraalVM, which this
 * machine cannot install; the hints it would use are checked in the starter's AotHintsTest.
 */
class DemoAotTest {

    private static final Pattern PROGRESS = Pattern.compile("(\\d+) orders placed, (\\d+) failed, (\\d+) billed, (\\d+) shipped");

    @Test
    @DisplayName("started with -Dspring.aot.enabled=true, the demo's listeners receive orders from Kafka and RabbitMQ")
    void demoRunsOnGeneratedInitializers() throws Exception {
        Path classes = Path.of(System.getProperty("demo.classes"));
        assertThat(classes.resolve("io/switchboard/examples/demo/DemoApplication__ApplicationContextInitializer.class"))
                .as("process-aot ran in the build (mvn process-classes) and left the generated initializer").exists();
        String classpath = classes + File.pathSeparator
                + Files.readString(Path.of(System.getProperty("demo.runtime.classpath-file")), StandardCharsets.UTF_8).trim();
        Path output = classes.resolveSibling("demo-aot.log");
        Process demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m",
                "-Dspring.aot.enabled=true", "-cp", classpath, DemoApplication.class.getName(),
                "--demo.duration=12s", "--demo.replicas=1", "--demo.load.rate=50")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean exited = demo.waitFor(4, TimeUnit.MINUTES);
        if (!exited) {
            demo.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String log = Files.readString(output, StandardCharsets.UTF_8);
        String tail = log.lines().skip(Math.max(0, log.lines().count() - 60)).reduce("", (a, b) -> a + b + "\n");
        assertThat(exited).as("the timed demo ends by itself within 4 minutes; its output:%n%s", tail).isTrue();
        assertThat(demo.exitValue()).as("exit code; output:%n%s", tail).isZero();
        assertThat(log).as("AOT mode").contains("Running on Spring AOT's generated initializers", "Starting AOT-processed DemoApplication");
        assertThat(log).contains("Both brokers carried traffic");
        List<Matcher> progress = log.lines().map(PROGRESS::matcher).filter(Matcher::find).toList();
        assertThat(progress).as("progress lines in:%n%s", tail).isNotEmpty();
        Matcher last = progress.get(progress.size() - 1);
        assertThat(Long.parseLong(last.group(3))).as("billed").isPositive();
        assertThat(Long.parseLong(last.group(4))).as("shipped").isPositive();
        assertThat(Long.parseLong(last.group(2))).as("failed").isZero();
    }
}
