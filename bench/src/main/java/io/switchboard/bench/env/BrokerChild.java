package io.switchboard.bench.env;

import io.switchboard.testkit.fault.ChildJvms;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One broker in a JVM of its own ({@link BrokerChildMain}), started through testkit's {@link ChildJvms}
 * on the bench's class path, its output in a log file of a temporary directory. Closing ends its
 * input (the child stops its broker, deleting the broker's data, and exits), waits for that, and kills
 * it if it does not go; a shutdown hook does the same when the bench is ended by a signal (Ctrl-C),
 * and a bench killed outright closes the child's input by dying.
 */
public final class BrokerChild implements AutoCloseable {

    private static final int ID = 1;
    private static final Duration READY = Duration.ofSeconds(120);
    private static final Duration STOPPING = Duration.ofSeconds(30);
    /** Heap of the child; the broker's data is in files (RocketMQ's memory-mapped), not on the heap. */
    static final String HEAP = "-Xmx768m";

    private final String broker;
    private final Path directory;
    private final ChildJvms jvms;
    private final Thread hook;
    private final Process process;
    private final String address;

    private BrokerChild(String broker, Path directory) {
        this.broker = broker;
        this.directory = directory;
        List<String> options = new ArrayList<>(List.of(HEAP, "-XX:+UseG1GC"));
        // what the bench JVM was given for its in-process brokers holds for the child's too
        for (String property : List.of("tls.server.mode", "rocketmq.log.root")) {
            String value = System.getProperty(property);
            if (value != null) {
                options.add("-D" + property + "=" + value);
            }
        }
        this.jvms = new ChildJvms(broker + " broker JVM", directory, BrokerChildMain.class, options);
        jvms.define(ID, List.of(broker));
        jvms.launch(ID);
        this.process = jvms.process(ID);
        this.hook = new Thread(() -> {
            stop();
            deleteDirectory();
        }, "bench-broker-child-" + broker + "-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        this.address = awaitAddress();
    }

    /**
     * Starts {@code broker}'s JVM and waits until the broker takes clients.
     *
     * @param broker {@code kafka} or {@code rocketmq}
     * @throws IllegalStateException naming the child's log when it exits or does not announce itself within 2 minutes
     */
    public static BrokerChild start(String broker) {
        Path directory;
        try {
            directory = Files.createTempDirectory("switchboard-bench-" + broker + "-child");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make a temporary directory for the " + broker + " broker JVM", e);
        }
        return new BrokerChild(broker, directory);
    }

    /** The broker's address: Kafka's bootstrap servers, RocketMQ's name server. */
    public String address() {
        return address;
    }

    /** The child JVM's process id. */
    public long pid() {
        return process.pid();
    }

    private String awaitAddress() {
        Path log = jvms.logOf(ID);
        long deadline = System.nanoTime() + READY.toNanos();
        while (true) {
            Optional<String> line = startedLine(log);
            if (line.isPresent()) {
                return line.get().substring(BrokerChildMain.STARTED.length()).trim();
            }
            if (!jvms.isAlive(ID)) {
                stopQuietly();
                throw new IllegalStateException("The " + broker + " broker JVM exited with "
                        + process.exitValue() + " before its broker was up; its log: " + log);
            }
            if (System.nanoTime() > deadline) {
                stopQuietly();
                throw new IllegalStateException("The " + broker + " broker JVM did not start its broker within " + READY
                        + "; its log: " + log);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    private static Optional<String> startedLine(Path log) {
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> l.startsWith(BrokerChildMain.STARTED)).findFirst();
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty(); // being written; read again
        }
    }

    /** Ends the child (see the class comment) and deletes its log directory. Idempotent. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook does the same
        }
        stop();
        deleteDirectory();
    }

    private void stopQuietly() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down
        }
        stop(); // the log stays, for the message that names it
    }

    /** Closes the child's input, waits up to {@link #STOPPING} for it to exit, then kills it (kill -9). Idempotent. */
    private void stop() {
        if (process.isAlive()) {
            try {
                process.getOutputStream().close();
                process.waitFor(STOPPING.toMillis(), TimeUnit.MILLISECONDS);
            } catch (IOException e) {
                // the input is gone already: the child is on its way out, or killed below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        jvms.killAll(); // kills what is left and waits for it; nothing when the child exited
    }

    private void deleteDirectory() {
        try (var paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }

    @Override
    public String toString() {
        return broker + " broker JVM (pid " + process.pid() + ") at " + address;
    }
}
