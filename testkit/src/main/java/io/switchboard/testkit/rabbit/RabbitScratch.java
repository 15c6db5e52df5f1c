package io.switchboard.testkit.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unique exchange and queue names for one test, and their deletion afterwards.
 *
 * <p>Every name starts with {@link #prefix()}, which is unique per scratch. {@link #close()}
 * deletes the names handed out or tracked, and, on a server on this machine, also every queue and
 * exchange whose name starts with the prefix: that catches what an adapter derived from a name
 * (group queues, partition queues, retry and dead-letter queues) without the test knowing them.
 * Not thread-safe for concurrent {@code close}; the naming methods are.
 */
public final class RabbitScratch implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RabbitScratch.class);

  private final RabbitMqServer server;
  private final String prefix;
  private final Set<String> exchanges = new LinkedHashSet<>();
  private final Set<String> queues = new LinkedHashSet<>();

  RabbitScratch(RabbitMqServer server, String testName) {
    this.server = server;
    String cleaned = testName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    if (cleaned.length() > 40) {
      cleaned = cleaned.substring(0, 40);
    }
    this.prefix = "sbt-" + cleaned + "-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
  }

  /** {@return the prefix every name of this scratch starts with} */
  public String prefix() {
    return prefix;
  }

  /**
   * {@return a unique name for {@code purpose}; not tracked (the prefix sweep still catches it)}
   *
   * @param purpose a word for what the name is for; it becomes part of the name
   */
  public String name(String purpose) {
    return prefix + "-" + purpose;
  }

  /**
   * {@return a unique exchange name, deleted on {@link #close()}}
   *
   * @param purpose a word for what the name is for; it becomes part of the name
   */
  public synchronized String exchange(String purpose) {
    String name = name(purpose);
    exchanges.add(name);
    return name;
  }

  /**
   * {@return a unique queue name, deleted on {@link #close()}}
   *
   * @param purpose a word for what the name is for; it becomes part of the name
   */
  public synchronized String queue(String purpose) {
    String name = name(purpose);
    queues.add(name);
    return name;
  }

  /**
   * Deletes the tracked names and, on a server on this machine, every queue and exchange whose
   * name starts with the prefix.
   */
  @Override
  public synchronized void close() throws IOException, TimeoutException {
    if (server.isLocal()) {
      server.deleteNamesStartingWith(List.of(prefix));
    }
    if (!queues.isEmpty() || !exchanges.isEmpty()) {
      try (Connection connection = server.connect("switchboard-testkit-cleanup")) {
        Channel channel = connection.createChannel();
        for (String queue : queues) {
          channel = delete(connection, channel, queue, true);
        }
        for (String exchange : exchanges) {
          channel = delete(connection, channel, exchange, false);
        }
      }
    }
    LOG.debug("Deleted what {} created", prefix);
    queues.clear();
    exchanges.clear();
  }

  private static Channel delete(Connection connection, Channel channel, String name, boolean queue) throws IOException {
    try {
      if (queue) {
        channel.queueDelete(name);
      } else {
        channel.exchangeDelete(name);
      }
      return channel;
    } catch (IOException e) {
      // A failed delete closes the channel: note it, carry on with a fresh channel.
      LOG.warn("Could not delete {} {}: {}", queue ? "queue" : "exchange", name, e.toString());
      return connection.createChannel();
    }
  }

  @Override
  public String toString() {
    return "RabbitScratch[" + prefix + "]";
  }
}
