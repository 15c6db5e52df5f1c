package io.switchboard.testkit.fleet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica of an application in a JVM of its own ({@link FleetReplicaMain}), driven over its
 * standard input by line commands and answering on its standard output; its log goes to
 * {@code <dir>/<id>.log}. It publishes and consumes {@code orders} (group {@code billing},
 * at-least-once), writing what its publisher had acknowledged to {@code <id>.published} and what
 * its handler saw to {@code <id>.consumed}, a payload a line, for the test's loss ledger.
 *
 * <pre>{@code
 * FleetReplica r1 = FleetReplica.start("r1", properties, dir);
 * r1.awaitReady(Duration.ofSeconds(90));
 * r1.call("update orders single:b");
 * }</pre>
 *
 * Commands (see {@link FleetReplicaMain}) answer one line; events the replica reports by itself
 * (its route version changing, a promotion finishing) are kept apart.
 */
public final class FleetReplica implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FleetReplica.class);

    private final String id;
    private final Process process;
    private final Path dir;
    private final Writer commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Map<Long, Long> versionSeenAt = new ConcurrentHashMap<>();
    private final List<String> finished = new CopyOnWriteArrayList<>();
    private volatile boolean ready;

    private FleetReplica(String id, Process process, Path dir) {
        this.id = id;
        this.process = process;
        this.dir = dir;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readAnswers, "fleet-replica-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Launches a replica on this JVM's classpath.
     *
     * @param id the replica id (also {@code switchboard.control.replica})
     * @param properties {@code instance.<name>.broker}, {@code instance.<name>.<property>} and
     *     {@code common.<property>} entries: the Switchboard it builds
     * @param dir where its files go
     * @return the running replica
     */
    public static FleetReplica start(String id, Map<String, String> properties, Path dir) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx320m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        String slf4jProvider = System.getProperty("slf4j.provider");
        if (slf4jProvider != null) {
            command.add("-Dslf4j.provider=" + slf4jProvider);
        }
        command.add("-Dtls.server.mode=disabled");
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), FleetReplicaMain.class.getName(), id, dir.toString()));
        properties.forEach((key, value) -> command.add(key + "=" + value));
        try {
            Files.createDirectories(dir);
            Process process = new ProcessBuilder(command).redirectError(dir.resolve(id + ".log").toFile()).start();
            log.info("Started fleet replica {} (pid {}), log {}", id, process.pid(), dir.resolve(id + ".log"));
            return new FleetReplica(id, process, dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start fleet replica " + id, e);
        }
    }

    private void readAnswers() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("@@ ")) {
                    continue;
                }
                String body = line.substring(3);
                if (body.startsWith("version ")) {
                    String[] p = body.split(" ");
                    versionSeenAt.putIfAbsent(Long.parseLong(p[1]), Long.parseLong(p[2]));
                } else if (body.startsWith("finished ")) {
                    finished.add(body.substring(9));
                } else if (body.equals("ready")) {
                    ready = true;
                } else {
                    answers.add(body);
                }
            }
        } catch (IOException e) {
            // the replica died; calls fail on their timeout
        }
        answers.add("! replica " + id + " exited");
    }

    /** {@return the id} */
    public String id() {
        return id;
    }

    /**
     * Waits until the replica's Switchboard, subscription and publisher are ready.
     *
     * @param timeout how long to wait at most
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    public void awaitReady(Duration timeout) throws InterruptedException {
        try {
            Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> ready || !process.isAlive());
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("Fleet replica " + id + " not ready within " + timeout + "; its log: " + log(), e);
        }
        if (!ready) {
            throw new IllegalStateException("Fleet replica " + id + " exited with " + process.exitValue() + "; its log: " + log());
        }
    }

    /**
     * Sends a command and returns its answer.
     *
     * @param command the command line
     * @return the answer
     * @throws IllegalStateException when the replica answers with an error ({@code ! ...}) or not within 60 s
     */
    public synchronized String call(String command) {
        try {
            answers.clear();
            commands.write(command + "\n");
            commands.flush();
            String answer = answers.poll(60, TimeUnit.SECONDS);
            if (answer == null) {
                throw new IllegalStateException("Fleet replica " + id + " did not answer '" + command + "' within 60 s; its log: " + log());
            }
            if (answer.startsWith("! ")) {
                throw new IllegalStateException("Fleet replica " + id + " answered '" + command + "' with: " + answer.substring(2));
            }
            return answer.startsWith("= ") ? answer.substring(2) : answer;
        } catch (IOException e) {
            throw new IllegalStateException("Fleet replica " + id + " is gone; its log: " + log(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * When (epoch ms) the replica first reported a route version of at least {@code version}, or null.
     *
     * @param version the route version
     * @return the time in epoch milliseconds, or null
     */
    public Long versionSeenAt(long version) {
        Long best = null;
        for (Map.Entry<Long, Long> e : versionSeenAt.entrySet()) {
            if (e.getKey() >= version && (best == null || e.getValue() < best)) {
                best = e.getValue();
            }
        }
        return best;
    }

    /** {@return the promotions it saw finish, as {@code <destination> <state>} lines} */
    public List<String> finishedPromotions() {
        return List.copyOf(finished);
    }

    /** {@return payloads its publisher had acknowledged} */
    public List<String> published() {
        return lines(dir.resolve(id + ".published"));
    }

    /** {@return payloads its handler saw} */
    public List<String> consumed() {
        return lines(dir.resolve(id + ".consumed"));
    }

    private static List<String> lines(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return the replica's log} */
    public Path log() {
        return dir.resolve(id + ".log");
    }

    /** {@return true while it runs} */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * {@code kill -9}, and waits for it to be gone. Idempotent.
     *
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Asks the replica to close its Switchboard and exit; kills it when it does not within 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            try {
                commands.write("quit\n");
                commands.flush();
            } catch (IOException e) {
                // gone already
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
