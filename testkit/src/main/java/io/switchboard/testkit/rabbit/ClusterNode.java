package io.switchboard.testkit.rabbit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One node: its names, ports and files, and the process running it (replaced on each start). */
final class ClusterNode {
  static final Duration BOOT_TIMEOUT = Duration.ofSeconds(120);
  static final Duration CTL_TIMEOUT = Duration.ofSeconds(60);
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  static final String INSTALL = "install the server with `apt-get install -y rabbitmq-server` (Debian), or set "
      + RabbitCluster.SCRIPTS_ENV + " to the directory holding its rabbitmq-server and rabbitmqctl scripts";

  private static final Logger log = LoggerFactory.getLogger(RabbitCluster.class);

  final int index;
  final String name;
  /** The node's own address (in its network namespace), where its AMQP and distribution ports listen. */
  final String address;
  /** The command prefix that runs a program in the node's network namespace. */
  private final List<String> inNamespace;
  final int amqpPort;
  final int distPort;
  final Path nodeDir;
  final Path pidFile;
  final Path console;
  /** The cluster's directory (shared files) and its HOME (the Erlang cookie). */
  private final Path dir;
  private final Path home;
  private final Path scripts;
  private final Object cluster;
  volatile Process process;
  volatile boolean frozen;
  volatile boolean cut;
  /** Set by {@link RabbitCluster#memoryAlarm(int, boolean)}. */
  volatile boolean alarmed;

  /**
   * A node of {@code cluster} (for messages), writing its {@code rabbitmq.conf} into {@code nodeDir}.
   *
   * @param address the node's address, in its network namespace
   * @param inNamespace the command prefix that runs a program in that namespace
   * @param scripts the server's scripts
   * @param dir the cluster's directory
   * @param home the HOME of the cluster's scripts, holding its Erlang cookie
   */
  ClusterNode(int index, String name, String address, List<String> inNamespace, int amqpPort, int distPort,
      Path nodeDir, Path scripts, Path dir, Path home, Object cluster) throws IOException {
    this.address = address;
    this.inNamespace = List.copyOf(inNamespace);
    this.scripts = scripts;
    this.dir = dir;
    this.home = home;
    this.cluster = cluster;
    this.index = index;
    this.name = name;
    this.amqpPort = amqpPort;
    this.distPort = distPort;
    this.nodeDir = nodeDir;
    this.pidFile = nodeDir.resolve("rabbitmq.pid");
    this.console = nodeDir.resolve("console.log");
    Files.writeString(nodeDir.resolve("rabbitmq.conf"), String.join("\n",
        "vm_memory_high_watermark.absolute = " + RabbitCluster.MEMORY_LIMIT,
        "disk_free_limit.absolute = " + RabbitCluster.DISK_FREE_LIMIT,
        "distribution.listener.interface = " + address,
        // the clients (the tests) connect from this host, through the namespace's veth pair: not from loopback
        "loopback_users = none",
        // a node silent for NET_TICKTIME_SECONDS (frozen, cut off) is declared down by its peers; once
        // it answers again, autoheal restarts the smaller side of the partition so that it rejoins
        "net_ticktime = " + RabbitCluster.NET_TICKTIME_SECONDS,
        "cluster_partition_handling = autoheal",
        "log.file.level = info",
        "log.console = false",
        ""));
  }

  /** Starts the node's VM in the background (the script execs the VM, so the process is the VM). */
  void launch() {
    List<String> command = new ArrayList<>(inNamespace);
    command.add(scripts.resolve("rabbitmq-server").toString());
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(nodeDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
    Map<String, String> env = builder.environment();
    environment(env);
    env.put("RABBITMQ_NODE_IP_ADDRESS", address);
    env.put("RABBITMQ_NODE_PORT", Integer.toString(amqpPort));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
    env.put("RABBITMQ_MNESIA_BASE", nodeDir.resolve("mnesia").toString());
    env.put("RABBITMQ_LOG_BASE", nodeDir.resolve("log").toString());
    env.put("RABBITMQ_PID_FILE", pidFile.toString());
    env.put("RABBITMQ_CONFIG_FILE", nodeDir.resolve("rabbitmq.conf").toString());
    env.put("RABBITMQ_ADVANCED_CONFIG_FILE", nodeDir.resolve("advanced.config").toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
    try {
      Files.deleteIfExists(pidFile);
      process = builder.start();
      frozen = false;
      alarmed = false; // the config file's watermark again
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + scripts.resolve("rabbitmq-server") + " for node " + name, e);
    }
  }

  /** The environment of this cluster's scripts: its own cookie (HOME) and env file, nothing inherited. */
  void environment(Map<String, String> env) {
    env.keySet().removeIf(key -> key.startsWith("RABBITMQ_") || key.startsWith("ERL_"));
    env.put("HOME", home.toString());
    env.put("RABBITMQ_NODENAME", name);
    env.put("RABBITMQ_CONF_ENV_FILE", dir.resolve("rabbitmq-env.conf").toString());
  }

  /** Waits until the node accepts TCP connections on its AMQP port (its last boot step), failing early if the VM exits. */
  void awaitBooted() {
    try {
      await().atMost(BOOT_TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> {
        if (!process.isAlive()) {
          throw new IllegalStateException("node " + name + " exited with " + process.exitValue() + " while booting");
        }
        return accepts();
      });
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException("node " + name + " did not open AMQP port " + amqpPort + " within "
          + BOOT_TIMEOUT.toSeconds() + " s", e);
    }
  }

  boolean accepts() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getByName(address), amqpPort), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Runs {@code rabbitmqctl -n <this node> -s <args>} with the cluster's cookie, in the node's
   * namespace (where its host name resolves, and which reaches the node while it is cut off).
   */
  List<String> ctl(String... args) {
    List<String> command = new ArrayList<>(inNamespace);
    command.addAll(List.of(scripts.resolve("rabbitmqctl").toString(), "-n", name, "-s"));
    command.addAll(List.of(args));
    return Rabbitmqctl.exec(command, this::environment, CTL_TIMEOUT, INSTALL,
        "is node " + name + " up and not frozen?", "node " + name + " of " + cluster);
  }

  /** The VM's pid from the pid file, or -1 while it is not running. */
  long pid() {
    return vm().map(ProcessHandle::pid).orElse(-1L);
  }

  /**
   * The node's Erlang VM: the process started here (the scripts exec the VM), or the descendant of
   * it that the pid file names. Never a process this cluster did not start, even if a stale pid
   * file names one.
   */
  Optional<ProcessHandle> vm() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return Optional.empty();
    }
    long fromFile;
    try {
      fromFile = Long.parseLong(Files.readString(pidFile).strip());
    } catch (IOException | NumberFormatException e) {
      return Optional.of(p.toHandle());
    }
    if (fromFile == p.pid()) {
      return Optional.of(p.toHandle());
    }
    return Optional.of(p.toHandle().descendants().filter(h -> h.pid() == fromFile).findFirst().orElse(p.toHandle()));
  }

  boolean isAlive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  void signal(String signal) {
    long pid = pid();
    if (pid <= 0) {
      throw new IllegalStateException("Node " + name + " is not running: cannot send SIG" + signal);
    }
    Rabbitmqctl.exec(List.of("kill", "-" + signal, Long.toString(pid)), env -> { }, CTL_TIMEOUT,
        "kill(1) must be on the PATH", "kill -" + signal + " hung", "the node's VM is pid " + pid);
    frozen = signal.equals("STOP");
  }

  /** SIGKILL to the VM (a frozen one too), then waits for it to be gone. */
  void kill() {
    Process p = process;
    if (p == null) {
      return;
    }
    vm().ifPresent(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    try {
      if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("Node " + name + " (pid " + p.pid() + ") did not die of SIGKILL within "
            + STOP_TIMEOUT.toSeconds() + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while killing node " + name, e);
    }
    frozen = false;
  }

  void stop() {
    if (frozen) {
      signal("CONT");
    }
    ctl("stop", pidFile.toString());
    Process p = process;
    try {
      if (p != null && !p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("Node " + name + " did not exit within " + STOP_TIMEOUT.toSeconds()
            + " s of rabbitmqctl stop");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while stopping node " + name, e);
    }
  }

  void stopOrKill() {
    if (!isAlive()) {
      return;
    }
    try {
      stop();
    } catch (RuntimeException e) {
      log.warn("Stopping RabbitMQ node {} failed ({}); killing it", name, e.getMessage());
      kill();
    }
  }

  /** The end of the node's console output and log, for a failure message. */
  String logTail() {
    StringBuilder tail = new StringBuilder();
    for (Path file : List.of(console, nodeDir.resolve("log").resolve(name + ".log"))) {
      try {
        List<String> lines = Files.readAllLines(file);
        tail.append("\n--- ").append(file).append(" (last lines) ---\n")
            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
      } catch (IOException e) {
        // not written (yet)
      }
    }
    return tail.toString();
  }

  /** Runs {@code work} on each node at once, on threads of its own (not the common pool), and waits for all. */
  static void inParallel(List<ClusterNode> nodes, java.util.function.Consumer<ClusterNode> work) {
    List<CompletableFuture<Void>> futures = new ArrayList<>();
    for (ClusterNode node : nodes) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      Thread thread = new Thread(() -> {
        try {
          work.accept(node);
          done.complete(null);
        } catch (Throwable t) {
          done.completeExceptionally(t);
        }
      }, "rabbit-cluster-" + node.name);
      thread.setDaemon(true);
      thread.start();
      futures.add(done);
    }
    allOf(futures.stream());
  }

  private static void allOf(Stream<CompletableFuture<Void>> futures) {
    try {
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }
}
