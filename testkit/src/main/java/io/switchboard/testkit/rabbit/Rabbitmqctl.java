package io.switchboard.testkit.rabbit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code rabbitmqctl} on this machine: the only way to list queues and close connections when
 * the management plugin is not enabled (it is not on Debian's default install). It needs the
 * Erlang cookie of the server, so it works as root or as the {@code rabbitmq} user.
 */
final class Rabbitmqctl {

  private static final long TIMEOUT_SECONDS = 30;

  private Rabbitmqctl() {}

  /**
   * Runs {@code rabbitmqctl -s <args>} where one argument is a secret (a password): on failure
   * the message shows {@code ***} in its place.
   */
  static List<String> runWithSecret(String secret, String... args) {
    try {
      return run(args);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(e.getMessage().replace(secret, "***"));
    }
  }

  /** Runs {@code rabbitmqctl -s <args>} and returns its standard output, one entry per line. */
  static List<String> run(String... args) {
    List<String> command = new ArrayList<>();
    command.add("rabbitmqctl");
    command.add("-s");
    command.addAll(List.of(args));
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot run " + String.join(" ", command)
          + ": rabbitmqctl must be on the PATH of the test JVM (Debian: /usr/sbin/rabbitmqctl)", e);
    }
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish within "
            + TIMEOUT_SECONDS + " s: is the RabbitMQ node up? Start it with: rabbitmq-server -detached");
      }
      String text = output.join();
      if (process.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue()
            + " (it needs the server's Erlang cookie: run the tests as root or as the rabbitmq user): "
            + text.strip());
      }
      return text.lines().filter(line -> !line.isBlank()).toList();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException("Interrupted while running " + String.join(" ", command), e);
    }
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
