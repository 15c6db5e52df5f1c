package io.switchboard.testkit.rabbit;

import io.switchboard.testkit.fault.NetworkNamespaces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ cluster of extra nodes of the server installed on this machine, started and torn down
 * by a test (one per test class: starting takes 20-40 s on two cores). No Docker: each node is a
 * {@code rabbitmq-server} process of the local installation (its scripts in {@value #DEFAULT_SCRIPTS},
 * or in the directory named by {@value #SCRIPTS_ENV}) run by the test JVM.
 *
 * <p>Each node runs in a Linux network namespace of its own ({@link NetworkNamespaces}: needs root
 * and iproute2), at an address of its own ({@link #host(int)}), under a host name that every node's
 * namespace resolves ({@code sbc<i>-<random>@<namespace>}: Erlang's short names; long names are not
 * an option where the machine's host name has no domain). Each has its own AMQP port and Erlang
 * distribution port, its own epmd (in its namespace), its own data, log and pid files under one
 * temporary directory, a small {@code rabbitmq.conf} (memory high watermark {@value #MEMORY_LIMIT},
 * disk free limit {@value #DISK_FREE_LIMIT}, {@code net_ticktime} {@value #NET_TICKTIME_SECONDS} s,
 * {@code cluster_partition_handling = autoheal}, {@code loopback_users = none}: the clients connect
 * through the namespace's link, not from loopback) and no plugins. The nodes share an Erlang cookie of their own,
 * in the temporary directory's {@code home/.erlang.cookie}: they cannot reach, nor be joined to, the
 * local server ({@code rabbit@localhost}), which this class never touches. Node 0 starts the cluster,
 * the others join it ({@code stop_app}, {@code join_cluster}, {@code start_app}); {@link #start(int)}
 * returns when {@code cluster_status} shows every node running.
 *
 * <p>Faults: {@link #kill9(int)} kills a node's Erlang VM with SIGKILL; {@link #cut(int)} cuts the
 * node off from its peers and every client (every packet to and from its namespace dropped) while it
 * runs, until {@link #heal(int)}: a network partition, which a {@link io.switchboard.testkit.fault.TcpProxy}
 * cannot make (the nodes find each other through epmd and connect directly); {@link #freeze(int)}
 * stops it with SIGSTOP until {@link #thaw(int)} (SIGCONT); {@link #memoryAlarm(int, boolean)} raises a
 * resource alarm, which blocks publishers cluster-wide. {@link #stop(int)} stops a node
 * cleanly, {@link #restart(int)} starts it again on its data (it rejoins the cluster).
 *
 * <p>When the cluster cannot be started the test fails (it never skips) with what to install or run.
 * {@link #close()} stops every node ({@code rabbitmqctl stop}, SIGKILL when that does not end it)
 * and deletes the temporary directory; a shutdown hook does the same if the JVM exits first.
 *
 * <pre>{@code
 * try (RabbitCluster cluster = RabbitCluster.start(3)) {
 *     String uri = cluster.uri(0);               // amqp://guest:guest@10.x.1.2:<port>/
 *     String addresses = cluster.addresses();    // 10.x.1.2:<p0>,10.x.2.2:<p1>,10.x.3.2:<p2>
 *     cluster.kill9(cluster.queueLeader("/", "orders.billing"));
 * }
 * }</pre>
 */
public final class RabbitCluster implements AutoCloseable {

  /** Environment variable naming the directory of the server's own scripts ({@code rabbitmq-server}, {@code rabbitmqctl}). */
  public static final String SCRIPTS_ENV = "SWITCHBOARD_RABBIT_SCRIPTS";
  /** Where Debian's package puts them ({@code /usr/sbin/rabbitmq-server} is a wrapper that switches user). */
  public static final String DEFAULT_SCRIPTS = "/usr/lib/rabbitmq/bin";
  /** Each node's {@code vm_memory_high_watermark.absolute}. */
  public static final String MEMORY_LIMIT = "256MB";
  /** Each node's {@code disk_free_limit.absolute}. */
  public static final String DISK_FREE_LIMIT = "50MB";

  /**
   * Each node's {@code net_ticktime}: peers declare a silent node down after 0.75 to 1.25 times
   * this many seconds (the default, 60, would let a frozen node's distribution links hang for a minute).
   */
  public static final int NET_TICKTIME_SECONDS = 10;

  private static final Logger log = LoggerFactory.getLogger(RabbitCluster.class);
  private static final String INSTALL = ClusterNode.INSTALL;

  private final Path dir;
  private final Path home;
  private final Path scripts;
  private final List<ClusterNode> nodes = new ArrayList<>();
  private final NetworkNamespaces network;
  private final ClusterStatus status;
  private final Thread shutdownHook = new Thread(this::killAndDelete, "rabbit-cluster-shutdown");
  private volatile boolean closed;

  private RabbitCluster(Path scripts, int size, NetworkNamespaces network) throws IOException {
    this.scripts = scripts;
    this.network = network;
    this.dir = Files.createTempDirectory("switchboard-rabbit-cluster-");
    this.home = Files.createDirectories(dir.resolve("home"));
    String suffix = ClusterFiles.prepare(dir, home);
    int[] ports = ClusterFiles.freePorts(2 * size);
    for (int i = 0; i < size; i++) {
      // namespaces count from 1
      nodes.add(new ClusterNode(i, "sbc" + i + "-" + suffix + "@" + network.hostName(i + 1), network.nodeAddress(i + 1),
          network.commandPrefix(i + 1), ports[2 * i], ports[2 * i + 1], Files.createDirectories(dir.resolve("node" + i)),
          scripts, dir, home, this));
    }
    this.status = new ClusterStatus(nodes, "the RabbitCluster in " + dir);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * Starts {@code size} nodes (in parallel), joins them into one cluster and waits until every
   * node runs in it.
   *
   * @param size how many nodes
   * @return the running cluster
   * @throws IllegalStateException when the server is not installed or a node does not start or join;
   *     the message says what to install or run, and quotes the end of the node's log. Whatever was
   *     started is stopped and deleted first.
   */
  public static RabbitCluster start(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("A cluster needs at least one node, not " + size);
    }
    Path scripts = Path.of(Optional.ofNullable(System.getenv(SCRIPTS_ENV)).filter(s -> !s.isBlank()).orElse(DEFAULT_SCRIPTS));
    for (String tool : List.of("rabbitmq-server", "rabbitmqctl")) {
      if (!Files.isExecutable(scripts.resolve(tool))) {
        throw new IllegalStateException("Cannot start a RabbitMQ cluster: " + scripts.resolve(tool) + " is missing; " + INSTALL);
      }
    }
    NetworkNamespaces network = NetworkNamespaces.create(size);
    RabbitCluster cluster;
    try {
      cluster = new RabbitCluster(scripts, size, network);
    } catch (IOException | RuntimeException e) {
      network.close();
      throw new IllegalStateException("Cannot prepare the directories of a RabbitMQ cluster: " + e, e);
    }
    try {
      long started = System.nanoTime();
      cluster.nodes.forEach(ClusterNode::launch);
      ClusterNode.inParallel(cluster.nodes, ClusterNode::awaitBooted);
      for (ClusterNode node : cluster.nodes.subList(1, size)) {
        node.ctl("stop_app");
        node.ctl("join_cluster", cluster.nodes.get(0).name);
        node.ctl("start_app");
      }
      cluster.awaitRunning();
      log.info("RabbitCluster of {} nodes ({}) ready in {} s, in {}", size, cluster.addresses(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), cluster.dir);
      return cluster;
    } catch (RuntimeException e) {
      String logs = cluster.nodes.stream().map(ClusterNode::logTail).reduce("", String::concat);
      cluster.close();
      throw new IllegalStateException("Cannot start a RabbitMQ cluster of " + size + " nodes of the local server: "
          + e.getMessage() + ". Check that `" + scripts.resolve("rabbitmq-server") + "` starts a node (" + INSTALL
          + ") and that the machine has 1 GiB of memory to spare." + logs, e);
    }
  }

  /** {@return how many nodes the cluster has} */
  public int size() {
    return nodes.size();
  }

  /**
   * {@return the Erlang node name of node {@code i} (from 0), such as {@code sbc0-x1y2@sb1234n1}}
   *
   * @param i the node's index, from 0
   */
  public String nodeName(int i) {
    return node(i).name;
  }

  /**
   * {@return the address of node {@code i} (in its network namespace), where its AMQP port listens}
   *
   * @param i the node's index, from 0
   */
  public String host(int i) {
    return node(i).address;
  }

  /**
   * {@return the AMQP port of node {@code i}, at {@link #host(int)}}
   *
   * @param i the node's index, from 0
   */
  public int port(int i) {
    return node(i).amqpPort;
  }

  /**
   * {@return the URI of node {@code i}: {@code amqp://guest:guest@<host>:<port>/}}
   *
   * @param i the node's index, from 0
   */
  public String uri(int i) {
    return "amqp://guest:guest@" + host(i) + ":" + port(i) + "/";
  }

  /**
   * {@return every node's {@code host:port}, comma-separated: the form of the RabbitMQ adapter's {@code
   * rabbitmq.addresses}}
   */
  public String addresses() {
    return String.join(",", nodes.stream().map(n -> n.address + ":" + n.amqpPort).toList());
  }

  /** {@return every node's {@link #uri(int)}, comma-separated} */
  public String uris() {
    return String.join(",", IntStream.range(0, size()).mapToObj(this::uri).toList());
  }

  /**
   * {@return the OS process id of node {@code i}'s Erlang VM (from its pid file), or -1 when it is not running}
   *
   * @param i the node's index, from 0
   */
  public long pid(int i) {
    return node(i).pid();
  }

  /**
   * {@return true while node {@code i}'s Erlang VM runs (frozen or not)}
   *
   * @param i the node's index, from 0
   */
  public boolean isAlive(int i) {
    return node(i).isAlive();
  }

  /**
   * {@return the index of the node named {@code nodeName}}
   *
   * @param nodeName the node's Erlang name
   */
  public int indexOf(String nodeName) {
    return nodes.stream().filter(n -> n.name.equals(nodeName)).mapToInt(n -> n.index).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(nodeName + " is not a node of this cluster: " + this));
  }

  /**
   * Kills node {@code i}'s Erlang VM with SIGKILL (no clean shutdown) and waits until it is gone.
   *
   * @param i the node's index, from 0
   */
  public void kill9(int i) {
    node(i).kill();
  }

  /**
   * Stops node {@code i}'s Erlang VM with SIGSTOP: the node answers nobody, peers and clients alike,
   * while every socket stays open (a partition), until {@link #thaw(int)}. Its quorum queue peers
   * notice within their Raft timeouts (seconds), the other nodes declare it down after
   * {@code net_ticktime} ({@value #NET_TICKTIME_SECONDS} s here), and a client only after its AMQP
   * heartbeat timeout (60 s unless the client asks for less). Thawed after that, it is the losing side
   * of a partition: {@code autoheal} restarts it (closing its client connections), and it rejoins.
   *
   * @param i the node's index, from 0
   */
  public void freeze(int i) {
    node(i).signal("STOP");
  }

  /**
   * Cuts node {@code i} off from its peers and every client while it keeps running: every packet to
   * and from it is dropped (its connections go silent, new ones time out), until {@link #heal(int)}.
   * The other nodes declare it down after {@code net_ticktime} ({@value #NET_TICKTIME_SECONDS} s
   * here) and elect new leaders for the quorum queues it led; once healed, {@code autoheal} restarts
   * the losing side (this node, closing its client connections) and it rejoins.
   *
   * @param i the node's index, from 0
   */
  public void cut(int i) {
    ClusterNode node = node(i);
    network.cut(i + 1);
    node.cut = true;
  }

  /**
   * Heals the cut of node {@code i} ({@link #cut(int)}); nothing happens to a node not cut.
   *
   * @param i the node's index, from 0
   */
  public void heal(int i) {
    ClusterNode node = node(i);
    network.heal(i + 1);
    node.cut = false;
  }

  /**
   * Lets a node stopped by {@link #freeze(int)} go on (SIGCONT).
   *
   * @param i the node's index, from 0
   */
  public void thaw(int i) {
    node(i).signal("CONT");
  }

  /**
   * Stops node {@code i} cleanly ({@code rabbitmqctl stop}) and waits until its VM has exited.
   *
   * @param i the node's index, from 0
   */
  public void stop(int i) {
    node(i).stop();
  }

  /**
   * Starts node {@code i} again on its own data (after {@link #kill9(int)} or {@link #stop(int)}; a
   * running node is stopped cleanly first) and waits until the cluster shows every node running.
   *
   * @param i the node's index, from 0
   */
  public void restart(int i) {
    ClusterNode node = node(i);
    if (node.isAlive()) {
      node.stop();
    }
    node.launch();
    node.awaitBooted();
    awaitRunning();
  }

  /**
   * Raises a memory alarm on node {@code i} (its memory high watermark set to one byte), or clears
   * it ({@value #MEMORY_LIMIT} again). RabbitMQ's resource alarms are cluster-wide: while any node
   * has one, every node blocks the connections that publish ({@code connection.blocked}); consumers go on.
   *
   * @param i the node's index, from 0
   * @param on true to raise the alarm, false to clear it
   */
  public void memoryAlarm(int i, boolean on) {
    ClusterNode node = node(i);
    node.ctl("set_vm_memory_high_watermark", "absolute", on ? "1" : MEMORY_LIMIT);
    node.alarmed = on;
  }

  /**
   * Heals cut nodes, thaws frozen ones, clears memory alarms and starts stopped ones, then waits
   * until every node runs in the cluster.
   */
  public void ensureAllRunning() {
    for (ClusterNode node : nodes) {
      if (node.cut) {
        heal(node.index);
      }
      if (node.frozen) {
        node.signal("CONT");
      }
      if (node.alarmed && node.isAlive()) {
        memoryAlarm(node.index, false);
      }
    }
    List<ClusterNode> down = nodes.stream().filter(n -> !n.isAlive()).toList();
    down.forEach(ClusterNode::launch);
    ClusterNode.inParallel(down, ClusterNode::awaitBooted);
    awaitRunning();
  }

  /** Waits until {@code cluster_status}, asked of every node, lists every node as running. */
  public void awaitRunning() {
    status.awaitRunning();
  }

  /** {@return the nodes {@code cluster_status} (asked of a live node neither frozen nor cut) lists as running, sorted by name} */
  public List<String> runningNodes() {
    return status.runningNodes();
  }

  /**
   * {@return the index of the node that leads quorum queue {@code queue} of {@code vhost} ({@code rabbitmqctl
   * list_queues name leader}, asked of a live node)}
   *
   * @param vhost the virtual host
   * @param queue the queue's name
   * @throws IllegalStateException when the queue is not there or has no leader
   */
  public int queueLeader(String vhost, String queue) {
    return indexOf(status.queueLeader(vhost, queue));
  }

  /** {@return which node holds each AMQP connection of the cluster, by client-provided name} */
  public Map<String, Integer> connectionNodes() {
    return status.connectionNodes();
  }

  /** {@return the directory holding every node's data and logs (deleted by {@link #close()})} */
  public Path directory() {
    return dir;
  }

  /**
   * Stops every node ({@code rabbitmqctl stop}, SIGKILL as a fallback), removes their network
   * namespaces and deletes the directory. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      nodes.stream().filter(n -> n.cut).forEach(n -> heal(n.index));
      ClusterNode.inParallel(nodes, ClusterNode::stopOrKill);
    } finally {
      killAllQuietly();
      network.close();
      deleteDirectory();
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook runs anyway and finds nothing left
      }
    }
  }

  @Override
  public String toString() {
    return "RabbitCluster[" + String.join(", ", nodes.stream().map(n -> n.name + " :" + n.amqpPort).toList()) + "]";
  }

  private ClusterNode node(int i) {
    if (i < 0 || i >= nodes.size()) {
      throw new IndexOutOfBoundsException("Node " + i + " of a cluster of " + nodes.size() + " (nodes count from 0)");
    }
    return nodes.get(i);
  }

  /** The shutdown hook: nodes killed, namespaces removed, directory deleted. */
  private void killAndDelete() {
    killAllQuietly();
    network.close();
    deleteDirectory();
  }

  private void deleteDirectory() {
    ClusterFiles.delete(dir);
  }

  private void killAllQuietly() {
    for (ClusterNode node : nodes) {
      try {
        node.kill();
      } catch (RuntimeException e) {
        log.warn("Could not kill RabbitMQ node {}: {}", node.name, e.toString());
      }
    }
  }
}
