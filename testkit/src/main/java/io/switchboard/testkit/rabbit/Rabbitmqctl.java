package io.switchboard.testkit.rabbit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

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
    return exec(command, environment -> { }, Duration.ofSeconds(TIMEOUT_SECONDS),
        "rabbitmqctl must be on the PATH of the test JVM (Debian: /usr/sbin/rabbitmqctl)",
        "is the RabbitMQ node up? Start it with: rabbitmq-server -detached",
        "it needs the server's Erlang cookie: run the tests as root or as the rabbitmq user");
  }

  /**
   * Runs a RabbitMQ command line tool and returns its standard output (with its standard error),
   * one entry per non-blank line. Every failure is an {@link IllegalStateException} whose message
   * shows the command and ends with the matching hint.
   *
   * @param command the tool and its arguments
   * @param environment changes to the environment the tool inherits from this JVM
   * @param timeout how long the tool may run before it is killed
   * @param notFoundHint why the tool may not start, and the fix
   * @param timeoutHint why the tool may not finish, and the fix
   * @param failedHint why the tool may exit non-zero, and the fix
   */
  static List<String> exec(List<String> command, Consumer<Map<String, String>> environment, Duration timeout,
      String notFoundHint, String timeoutHint, String failedHint) {
    Process process;
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      environment.accept(builder.environment());
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot run " + String.join(" ", command) + ": " + notFoundHint, e);
    }
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish within "
            + timeout.toSeconds() + " s: " + timeoutHint);
      }
      String text = output.join();
      if (process.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue()
            + " (" + failedHint + "): " + text.strip());
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
