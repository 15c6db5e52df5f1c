package io.switchboard.testkit.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes of a test cluster, each a JVM of its own started on this JVM's class path, so that a
 * test can kill one ({@code kill -9}), freeze it ({@code SIGSTOP}: to its peers and clients it
 * stops answering, as if cut off by the network, while its sockets stay open), stop it cleanly
 * ({@code SIGTERM}) and start it again with the same arguments. Each node's output goes to
 * {@code <directory>/node-<id>.log}.
 */
public final class ChildJvms {

    private static final Logger log = LoggerFactory.getLogger(ChildJvms.class);
    /** Exit codes of a JVM ended by SIGKILL and SIGTERM. */
    private static final int KILLED = 137;
    private static final int TERMINATED = 143;

    private final String what;
    private final Path directory;
    private final String mainClass;
    private final List<String> jvmOptions;
    private final Map<Integer, List<String>> arguments = new LinkedHashMap<>();
    private final Map<Integer, List<String>> prefixes = new LinkedHashMap<>();
    private final Map<Integer, Process> processes = new LinkedHashMap<>();

    /**
     * @param what what a node is, for messages ({@code "Kafka node"})
     * @param directory where the node logs go
     * @param mainClass the class whose {@code main} runs a node
     * @param jvmOptions options for every node's JVM (heap, GC)
     */
    public ChildJvms(String what, Path directory, Class<?> mainClass, List<String> jvmOptions) {
        this.what = what;
        this.directory = directory;
        this.mainClass = mainClass.getName();
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /**
     * Remembers node {@code id}'s program arguments, for {@link #launch(int)}.
     *
     * @param id the node id
     * @param args the arguments of the node's main class
     */
    public void define(int id, List<String> args) {
        define(id, args, List.of());
    }

    /**
     * Remembers node {@code id}'s program arguments and a command that runs its JVM (such as
     * {@link NetworkNamespaces#commandPrefix}: {@code ip netns exec <namespace>}, which runs the
     * JVM in the same process, so that signals still reach it).
     *
     * @param id the node id
     * @param args the arguments of the node's main class
     * @param commandPrefix the command the {@code java} command line is appended to (empty: none)
     */
    public void define(int id, List<String> args, List<String> commandPrefix) {
        arguments.put(id, List.copyOf(args));
        prefixes.put(id, List.copyOf(commandPrefix));
    }

    /** {@return the node ids defined, in order} */
    public List<Integer> ids() {
        return List.copyOf(arguments.keySet());
    }

    /**
     * Starts node {@code id}'s JVM (without waiting for it to be ready).
     *
     * @param id the node id
     */
    public synchronized void launch(int id) {
        if (isAlive(id)) {
            throw new IllegalStateException(what + " " + id + " runs already");
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(prefixes.getOrDefault(id, List.of()));
        command.add(java);
        command.addAll(jvmOptions);
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-Djava.io.tmpdir="))) {
            // what a node unpacks or generates (RocksDB's native library, Netty's certificates) stays in its
            // directory, deleted with it, even when the node is killed before its deleteOnExit runs
            command.add("-Djava.io.tmpdir=" + temporaryDirectory());
        }
        String slf4jProvider = System.getProperty("slf4j.provider");
        if (slf4jProvider != null) {
            command.add("-Dslf4j.provider=" + slf4jProvider);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(arguments.get(id));
        Path logFile = logOf(id);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
            processes.put(id, p);
            log.info("{} {} starting (pid {}), log {}", what, id, p.pid(), logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + what + " " + id, e);
        }
    }

    private Path temporaryDirectory() {
        Path tmp = directory.resolve("tmp");
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make the temporary directory " + tmp + " of " + what
                    + "s: check that " + directory + " is writable", e);
        }
        return tmp;
    }

    /**
     * {@return node {@code id}'s log file}
     *
     * @param id the node id
     */
    public Path logOf(int id) {
        return directory.resolve("node-" + id + ".log");
    }

    /**
     * {@return node {@code id}'s JVM process, to wait for its exit or read its pid}
     *
     * @param id the node id
     * @throws IllegalStateException if the node was never launched
     */
    public synchronized Process process(int id) {
        Process p = processes.get(id);
        if (p == null) {
            throw new IllegalStateException(what + " " + id + " was not launched");
        }
        return p;
    }

    /**
     * {@return true while node {@code id}'s JVM runs (frozen counts as running)}
     *
     * @param id the node id
     */
    public synchronized boolean isAlive(int id) {
        Process p = processes.get(id);
        return p != null && p.isAlive();
    }

    /**
     * Fails if a node exited by itself (not killed or stopped by this class's signals).
     *
     * @throws IllegalStateException naming the node and its log
     */
    public synchronized void checkNoneExited() {
        for (Map.Entry<Integer, Process> e : processes.entrySet()) {
            Process p = e.getValue();
            if (!p.isAlive() && p.exitValue() != KILLED && p.exitValue() != TERMINATED) {
                throw new IllegalStateException(what + " " + e.getKey() + " exited with " + p.exitValue()
                        + "; its log: " + logOf(e.getKey()));
            }
        }
    }

    /**
     * Kills node {@code id} with {@code kill -9} and waits until it is gone.
     *
     * @param id the node id
     */
    public void kill(int id) {
        Process p = running(id);
        p.destroyForcibly();
        waitFor(p, id);
        log.info("{} {} killed (kill -9)", what, id);
    }

    /**
     * Stops node {@code id} with SIGTERM (its shutdown hooks run) and waits until it exited.
     *
     * @param id the node id
     */
    public void stop(int id) {
        Process p = running(id);
        p.destroy();
        waitFor(p, id);
        log.info("{} {} stopped (SIGTERM)", what, id);
    }

    /**
     * Freezes node {@code id} (SIGSTOP): it answers nobody until {@link #thaw(int)}.
     *
     * @param id the node id
     */
    public void freeze(int id) {
        signal(id, "STOP");
        log.info("{} {} frozen (SIGSTOP)", what, id);
    }

    /**
     * Lets a frozen node run again (SIGCONT).
     *
     * @param id the node id
     */
    public void thaw(int id) {
        signal(id, "CONT");
        log.info("{} {} thawed (SIGCONT)", what, id);
    }

    /** Kills every node (thawing frozen ones first) and waits until they are gone. Idempotent. */
    public synchronized void killAll() {
        for (Map.Entry<Integer, Process> e : processes.entrySet()) {
            if (e.getValue().isAlive()) {
                signal(e.getKey(), "CONT");
                e.getValue().destroyForcibly();
                waitFor(e.getValue(), e.getKey());
            }
        }
        processes.clear();
    }

    private synchronized Process running(int id) {
        Process p = processes.get(id);
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException(what + " " + id + " is not running");
        }
        return p;
    }

    private void signal(int id, String signal) {
        Process p;
        synchronized (this) {
            p = processes.get(id);
        }
        if (p == null || !p.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while signalling " + what + " " + id, e);
        }
    }

    private void waitFor(Process p, int id) {
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                log.warn("{} {} did not exit within 60 s; killed", what, id);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
