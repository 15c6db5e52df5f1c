package io.switchboard.testkit.rabbit;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What a {@link RabbitCluster}'s nodes say about it ({@code rabbitmqctl} asked of a live node that
 * is neither frozen nor cut off): which nodes run, which node leads a quorum queue, where each
 * client connection is.
 */
final class ClusterStatus {

  private static final Pattern RUNNING_NODES = Pattern.compile("\"running_nodes\"\\s*:\\s*\\[([^\\]]*)]");
  private static final Pattern CONNECTION_NAME = Pattern.compile("\\{\"connection_name\",\"([^\"]*)\"}");

  private final List<ClusterNode> nodes;
  private final String cluster;

  ClusterStatus(List<ClusterNode> nodes, String cluster) {
    this.nodes = nodes;
    this.cluster = cluster;
  }

  /** Waits until {@code cluster_status}, asked of every node, lists every node as running. */
  void awaitRunning() {
    List<String> expected = nodes.stream().map(n -> n.name).sorted().toList();
    try {
      await().atMost(ClusterNode.BOOT_TIMEOUT).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
          .until(() -> nodes.stream().allMatch(n -> runningNodes(n).equals(expected)));
    } catch (ConditionTimeoutException e) {
      Object last;
      try {
        last = runningNodes();
      } catch (RuntimeException failure) {
        last = failure.getMessage();
      }
      throw new IllegalStateException("The cluster did not show all of " + expected + " running within "
          + ClusterNode.BOOT_TIMEOUT.toSeconds() + " s; last cluster_status: " + last, e);
    }
  }

  List<String> runningNodes() {
    return askLiveNodes(this::runningNodes);
  }

  private List<String> runningNodes(ClusterNode node) {
    String json = String.join("\n", node.ctl("cluster_status", "--formatter", "json"));
    Matcher matcher = RUNNING_NODES.matcher(json);
    if (!matcher.find()) {
      throw new IllegalStateException("No running_nodes in cluster_status: " + json);
    }
    return Stream.of(matcher.group(1).split(",")).map(s -> s.strip().replace("\"", "")).filter(s -> !s.isEmpty())
        .sorted().toList();
  }

  /** The node name leading {@code queue}, or an exception naming the queue. */
  String queueLeader(String vhost, String queue) {
    for (String line : askLiveNodes(n -> n.ctl("list_queues", "-p", vhost, "name", "leader"))) {
      String[] fields = line.split("\t");
      if (fields.length == 2 && fields[0].equals(queue)) {
        return fields[1].strip();
      }
    }
    throw new IllegalStateException("Queue '" + queue + "' of vhost '" + vhost + "' has no leader on " + cluster);
  }

  Map<String, Integer> connectionNodes() {
    Map<String, Integer> where = new TreeMap<>();
    for (String line : askLiveNodes(n -> n.ctl("list_connections", "port", "client_properties"))) {
      Matcher matcher = CONNECTION_NAME.matcher(line);
      String[] fields = line.split("\t", 2);
      if (matcher.find() && fields.length == 2) {
        int port = Integer.parseInt(fields[0].strip());
        nodes.stream().filter(n -> n.amqpPort == port).findFirst().ifPresent(n -> where.put(matcher.group(1), n.index));
      }
    }
    return where;
  }

  /** Asks each live node that is neither frozen nor cut off in turn; the first answer wins (a node may be restarting its app). */
  private <T> T askLiveNodes(Function<ClusterNode, T> question) {
    RuntimeException failure = null;
    for (ClusterNode node : nodes) {
      if (node.isAlive() && !node.frozen && !node.cut) {
        try {
          return question.apply(node);
        } catch (RuntimeException e) {
          failure = e;
        }
      }
    }
    throw failure != null ? failure : new IllegalStateException("No node of " + cluster + " is running");
  }
}
