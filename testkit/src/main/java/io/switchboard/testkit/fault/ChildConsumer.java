package io.switchboard.testkit.fault;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.JdbcIdempotencyStore;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer in a JVM of its own, for fault tests to kill with {@code kill -9} mid-processing, on any
 * broker; {@link #startExactlyOnce} makes an exactly-once one writing into a {@link JdbcSink}. The child ({@link #main(String[])}) subscribes a group at-least-once, sleeps a little per
 * message and appends each handled payload as a line to a file, flushed per line; it creates
 * {@code <file>.ready} once the subscription is ready, then runs until killed. The test side
 * ({@link #start}) launches it on the test classpath and reads what it handled:
 *
 * <pre>{@code
 * ChildConsumer child = ChildConsumer.start("kafka", Map.of("kafka.bootstrap.servers", bootstrap),
 *         topic, "g", dir.resolve("handled.txt"), 10);
 * try {
 *     child.awaitReady(Duration.ofSeconds(60));
 *     // publish, wait until it handled some
 *     child.kill();
 *     child.handledPayloads().forEach(ledger::consumed);
 * } finally {
 *     child.kill();
 * }
 * }</pre>
 */
public final class ChildConsumer {

    private static final Logger log = LoggerFactory.getLogger(ChildConsumer.class);

    private final Process process;
    private final Path out;
    private final Path logFile;
    private final JdbcSink sink;

    private ChildConsumer(Process process, Path out, Path logFile, JdbcSink sink) {
        this.process = process;
        this.out = out;
        this.logFile = logFile;
        this.sink = sink;
    }

    /**
     * Launches a child consumer JVM on this JVM's classpath.
     *
     * @param brokerId the broker id, e.g. {@code kafka}
     * @param properties instance properties, e.g. {@code kafka.bootstrap.servers}
     * @param destination the destination subscribed
     * @param group the group subscribed, at-least-once
     * @param out the file each handled payload is appended to, a line each; its output goes to {@code <out>.log}
     * @param sleepMillis the time each message takes to handle
     * @return the running child
     */
    public static ChildConsumer start(String brokerId, Map<String, String> properties, String destination,
            String group, Path out, long sleepMillis) {
        return launch(brokerId, properties, destination, group, out, sleepMillis, null);
    }

    /**
     * Launches a child consumer JVM that subscribes exactly-once with a {@link JdbcIdempotencyStore}
     * on {@code sink}'s idempotency table and handles each message with {@link JdbcSink#handler}:
     * the payload goes into the output table in the same transaction that marks its id done, and
     * the handler sleeps {@code sleepMillis} inside that transaction, so a kill lands mid-transaction.
     * {@link #handledPayloads()} reads the output table.
     *
     * @param brokerId the adapter id, such as {@code kafka}
     * @param properties instance properties, such as {@code kafka.bootstrap.servers}
     * @param destination the destination subscribed
     * @param group the group subscribed
     * @param out names the ready marker ({@code <out>.ready}) and the child's output ({@code <out>.log})
     * @param sleepMillis how long the handler sleeps in each transaction, in milliseconds
     * @param sink the database tables
     * @return the running child
     */
    public static ChildConsumer startExactlyOnce(String brokerId, Map<String, String> properties, String destination,
            String group, Path out, long sleepMillis, JdbcSink sink) {
        return launch(brokerId, properties, destination, group, out, sleepMillis, sink);
    }

    private static ChildConsumer launch(String brokerId, Map<String, String> properties, String destination,
            String group, Path out, long sleepMillis, JdbcSink sink) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1"));
        String slf4jProvider = System.getProperty("slf4j.provider");
        if (slf4jProvider != null) {
            command.add("-Dslf4j.provider=" + slf4jProvider);
        }
        if (sink != null) {
            command.addAll(sink.systemProperties());
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChildConsumer.class.getName(),
                brokerId, destination, group, out.toString(), Long.toString(sleepMillis)));
        properties.forEach((key, value) -> command.add(key + "=" + value));
        Path logFile = Path.of(out + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(logFile.toFile())
                    .start();
            log.info("Started child consumer {} on {} {} group {}{}, output in {}", process.pid(), brokerId, destination,
                    group, sink == null ? "" : " exactly-once into " + sink.outputTable(), logFile);
            return new ChildConsumer(process, out, logFile, sink);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start a child consumer JVM", e);
        }
    }

    /**
     * Waits until the child's subscription is ready.
     *
     * @param timeout how long to wait at most
     * @throws IllegalStateException if the child died first or is not ready within {@code timeout}; the message
     *         names its log
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    public void awaitReady(Duration timeout) throws InterruptedException {
        Path ready = Path.of(out + ".ready");
        try {
            Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(50))
                    .until(() -> Files.exists(ready) || !process.isAlive());
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("Child consumer not ready within " + timeout + "; its output ("
                    + logFile + ") ends with:\n" + ExitCheck.tail(logFile), e);
        }
        if (!Files.exists(ready)) {
            throw new IllegalStateException("Child consumer exited with " + process.exitValue() + " before it was "
                    + "ready; its output (" + logFile + ") ends with:\n" + ExitCheck.tail(logFile));
        }
    }

    /**
     * Makes an exactly-once child stop inside the transaction of the message it handles next (its
     * id claimed, not done) and waits until it has, so that a {@link #kill} lands mid-transaction.
     *
     * @param timeout how long to wait at most
     * @throws IllegalStateException if the child does not stop within {@code timeout} or died; the message names its log
     * @throws IOException when the marker file cannot be written
     */
    public void holdInTransaction(Duration timeout) throws IOException {
        if (sink == null) {
            throw new IllegalStateException("holdInTransaction is for a child started with startExactlyOnce");
        }
        Path held = Path.of(out + ".hold.held");
        Files.createFile(Path.of(out + ".hold"));
        try {
            Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(20))
                    .until(() -> Files.exists(held) || !process.isAlive());
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("Child consumer did not stop in a transaction within " + timeout
                    + "; its output (" + logFile + ") ends with:\n" + ExitCheck.tail(logFile), e);
        }
        if (!Files.exists(held)) {
            throw new IllegalStateException("Child consumer exited with " + process.exitValue() + "; its output ("
                    + logFile + ") ends with:\n" + ExitCheck.tail(logFile));
        }
    }

    /** {@return true while the child runs} */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the child ({@code kill -9}) and waits for it to be gone. Idempotent.
     *
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            log.warn("Child consumer {} still running 30 s after kill -9", process.pid());
        }
    }

    /**
     * {@return the payloads handled so far: in order, the complete lines of the file (a kill may leave half a
     * line); for an exactly-once child, the committed rows of the sink's output table}
     */
    public List<String> handledPayloads() {
        if (sink != null) {
            return sink.handledPayloads();
        }
        if (!Files.exists(out)) {
            return List.of();
        }
        try {
            String text = Files.readString(out, StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n"));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + out, e);
        }
    }

    /** {@return the child's output (stdout and stderr)} */
    public Path logFile() {
        return logFile;
    }

    /**
     * The child's main. Arguments: broker id, destination, group, output file, sleep per message in ms, then
     * instance properties as {@code key=value}.
     *
     * @param args see above
     * @throws Exception any failure, which ends the child with its stack trace in its log
     */
    public static void main(String[] args) throws Exception {
        String brokerId = args[0];
        String destination = args[1];
        String group = args[2];
        Path out = Path.of(args[3]);
        long sleepMillis = Long.parseLong(args[4]);
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 5; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            properties.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        JdbcSink sink = JdbcSink.fromSystemProperties();
        Subscription subscription;
        if (sink != null) {
            JdbcIdempotencyStore store = sink.store();
            Switchboard sb = Switchboard.builder().broker(brokerId).properties(properties).idempotencyStore(store).build();
            subscription = sb.subscriber(destination, Codec.utf8()).group(group)
                    .delivery(Delivery.EXACTLY_ONCE)
                    .subscribe(sink.handler(store, sleepMillis, Path.of(out + ".hold")));
        } else {
            Switchboard sb = Switchboard.builder().broker(brokerId).properties(properties).build();
            Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            subscription = sb.subscriber(destination, Codec.utf8()).group(group)
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((message, context) -> {
                        Thread.sleep(sleepMillis);
                        append(writer, message.payload());
                    });
        }
        subscription.ready().toCompletableFuture().join();
        Files.createFile(Path.of(out + ".ready"));
        log.info("Child consumer ready on {} {} group {}", brokerId, destination, group);
        // the handler threads may be daemons: keep the JVM alive until killed
        subscription.terminated().toCompletableFuture().join();
    }

    private static synchronized void append(Writer writer, String payload) throws IOException {
        writer.write(payload + "\n");
        writer.flush();
    }
}
