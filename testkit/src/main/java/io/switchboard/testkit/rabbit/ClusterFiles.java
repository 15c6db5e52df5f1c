package io.switchboard.testkit.rabbit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The files and ports of a {@link RabbitCluster}: its directory, Erlang cookie and shared settings. */
final class ClusterFiles {

  private static final Logger log = LoggerFactory.getLogger(RabbitCluster.class);

  private ClusterFiles() {}

  /**
   * Writes the cluster's own Erlang cookie into {@code home}, and into {@code dir} an empty plugin
   * list (management and prometheus would bind the local server's fixed ports) and an empty env file
   * (none of the system's).
   *
   * @return a random suffix for the nodes' names
   */
  static String prepare(Path dir, Path home) throws IOException {
    SecureRandom random = new SecureRandom();
    Path cookie = home.resolve(".erlang.cookie");
    Files.writeString(cookie, randomCookie(random), StandardCharsets.US_ASCII);
    Files.setPosixFilePermissions(cookie, PosixFilePermissions.fromString("r--------"));
    Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
    Files.writeString(dir.resolve("rabbitmq-env.conf"), "");
    return Long.toString(Math.abs(random.nextLong() % 1_000_000_000L), 36);
  }

  static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      log.warn("Could not delete {} entirely: {}", dir, e.toString());
    }
  }

  static String randomCookie(SecureRandom random) {
    StringBuilder cookie = new StringBuilder();
    for (int i = 0; i < 32; i++) {
      cookie.append((char) ('A' + random.nextInt(26)));
    }
    return cookie.toString();
  }

  /** Ports free on 127.0.0.1 right now, all different (held open together while they are picked). */
  static int[] freePorts(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return held.stream().mapToInt(ServerSocket::getLocalPort).toArray();
    } finally {
      for (ServerSocket socket : held) {
        socket.close();
      }
    }
  }
}
