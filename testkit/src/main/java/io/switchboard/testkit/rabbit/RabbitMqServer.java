package io.switchboard.testkit.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test-side handle on the RabbitMQ server that runs on this machine (tests never start or
 * embed RabbitMQ: it is the real server, as in production).
 *
 * <p>The address comes from the environment variable {@value #URI_ENV}, else
 * {@value #DEFAULT_URI}. A test calls {@link #require()} first: when the server is not there the
 * test <em>fails</em> (it never skips) with a message that names the URI and the command that
 * starts the server. The password of the URI never appears in a message or in {@link #toString()}.
 *
 * <p>{@link #scratch(String)} gives unique exchange and queue names and deletes them afterwards;
 * {@link #closeConnectionsNamed(String)} and {@link #closeAllConnections(String)} force the server
 * to drop connections, for recovery tests. Those two and the sweep of leftover names use
 * {@code rabbitmqctl}, because the management HTTP API is not enabled on this server.
 */
public final class RabbitMqServer {

  /** Environment variable that overrides the server URI. */
  public static final String URI_ENV = "SWITCHBOARD_RABBIT_URI";
  /** URI used when {@value #URI_ENV} is not set (an empty path means the default vhost "/"). */
  public static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/";
  /** The command that starts the local server; the port opens 11-20 s later. */
  public static final String START_COMMAND = "rabbitmq-server -detached";

  private static final int PROBE_TIMEOUT_MILLIS = 2_000;
  private static final Pattern CONNECTION_LINE =
      Pattern.compile("^(\\S+)\\t.*\\{\"connection_name\",\"([^\"]*)\"}");

  private final URI uri;
  private final String source;
  private volatile boolean verified;

  private RabbitMqServer(URI uri, String source) {
    this.uri = uri;
    this.source = source;
  }

  /** {@return the server named by {@value #URI_ENV}, else the local default {@value #DEFAULT_URI}} */
  public static RabbitMqServer local() {
    String fromEnv = System.getenv(URI_ENV);
    if (fromEnv == null || fromEnv.isBlank()) {
      return at(DEFAULT_URI, "default");
    }
    return at(fromEnv.strip(), "from " + URI_ENV);
  }

  /**
   * {@return the server at {@code amqpUri} ({@code amqp://user:password@host:port/vhost})}
   *
   * @param amqpUri the URI
   */
  public static RabbitMqServer at(String amqpUri) {
    return at(amqpUri, "given");
  }

  private static RabbitMqServer at(String amqpUri, String source) {
    URI parsed;
    try {
      parsed = new URI(amqpUri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("RabbitMQ URI (" + source + ") is not a valid URI: "
          + e.getReason() + "; expected amqp://user:password@host:5672/vhost", e);
    }
    String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("amqp") && !scheme.equals("amqps") || parsed.getHost() == null) {
      throw new IllegalArgumentException("RabbitMQ URI (" + source + ") must look like "
          + "amqp://user:password@host:5672/vhost but was " + redact(parsed));
    }
    return new RabbitMqServer(parsed, source);
  }

  /** {@return the URI with its password replaced by {@code ***}: safe for logs and messages} */
  public String redactedUri() {
    return redact(uri);
  }

  /** {@return the host name or address of the server} */
  public String host() {
    return uri.getHost();
  }

  /** {@return the AMQP port of the server} */
  public int port() {
    if (uri.getPort() > 0) {
      return uri.getPort();
    }
    return "amqps".equalsIgnoreCase(uri.getScheme()) ? 5671 : 5672;
  }

  /** {@return the virtual host; an empty URI path means the default vhost {@code /}} */
  public String virtualHost() {
    String path = uri.getPath();
    return path == null || path.isEmpty() || path.equals("/") ? "/" : path.substring(1);
  }

  /**
   * {@return the full URI, password included, for handing to the adapter under test} Never log it: use {@link
   * #redactedUri()} for that.
   */
  public String uriWithCredentials() {
    return uri.toString();
  }

  /**
   * Fails unless the server accepts an AMQP connection. The message names the URI (without its
   * password) and how to start the server: {@value #START_COMMAND}.
   *
   * @return this server, for chaining
   * @throws IllegalStateException when the port is closed or the connection is refused
   */
  public RabbitMqServer require() {
    if (verified) {
      return this;
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host(), port()), PROBE_TIMEOUT_MILLIS);
    } catch (IOException e) {
      throw new IllegalStateException("RabbitMQ is not reachable at " + redactedUri() + " (" + source
          + "): " + e.getMessage() + ". Start the local server with `" + START_COMMAND
          + "` (the port opens after 11-20 s; .ci/rabbitmq-up.sh does it and waits), or point "
          + URI_ENV + " at a running server.", e);
    }
    try (Connection ignored = connect("switchboard-testkit-probe")) {
      verified = true;
      return this;
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException("RabbitMQ at " + redactedUri() + " (" + source
          + ") accepts TCP but refused the AMQP connection: " + e
          + ". Check user, password and vhost in the URI (set " + URI_ENV + "), or restart the server"
          + " with `rabbitmqctl stop` then `" + START_COMMAND + "`.", e);
    }
  }

  /**
   * {@return a connection factory for this server with automatic connection and topology recovery on and a short
   * recovery interval, for tests that use a plain amqp-client next to Switchboard}
   */
  public ConnectionFactory connectionFactory() {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot set up TLS for " + redactedUri() + ": " + e.getMessage(), e);
    }
    factory.setVirtualHost(virtualHost());
    factory.setAutomaticRecoveryEnabled(true);
    factory.setTopologyRecoveryEnabled(true);
    factory.setNetworkRecoveryInterval(500L);
    factory.setConnectionTimeout(PROBE_TIMEOUT_MILLIS * 5);
    return factory;
  }

  /**
   * Opens a plain amqp-client connection; {@code connectionName} shows in {@code rabbitmqctl
   * list_connections} and is what {@link #closeConnectionsNamed(String)} matches.
   *
   * @param connectionName the connection's client-provided name
   * @return the open connection; the caller closes it
   * @throws IOException when the connection to the broker fails
   * @throws TimeoutException when the broker does not answer in time
   */
  public Connection connect(String connectionName) throws IOException, TimeoutException {
    return connectionFactory().newConnection(connectionName);
  }

  /**
   * Unique names for one test (or test class) and the deletion of what it created.
   *
   * @param testName the test's name, part of every name
   * @return the scratch; close it after the test
   */
  public RabbitScratch scratch(String testName) {
    return new RabbitScratch(this, testName);
  }

  /**
   * Makes the server close every connection whose client-provided name starts with
   * {@code namePrefix}, as a network failure would (the clients see a connection-forced close and
   * recover). Uses {@code rabbitmqctl}, so it works only for a server on this machine.
   *
   * @param namePrefix the start of the names
   * @return how many connections were closed
   */
  public int closeConnectionsNamed(String namePrefix) {
    requireLocal("close connections");
    int closed = 0;
    for (String line : Rabbitmqctl.run("list_connections", "pid", "client_properties")) {
      Matcher matcher = CONNECTION_LINE.matcher(line);
      if (matcher.find() && matcher.group(2).startsWith(namePrefix)) {
        Rabbitmqctl.run("close_connection", matcher.group(1), "switchboard test: forced close");
        closed++;
      }
    }
    return closed;
  }

  /**
   * Raises a memory alarm on the local node for as long as {@code body} runs, so that the broker blocks
   * publishing connections ({@code connection.blocked}); then sets the node's relative memory high watermark
   * back to what it was, even when {@code body} fails. Only for a node whose watermark is relative (the
   * default, 0.4); hold the broker lock: every publisher on the node is blocked meanwhile.
   *
   * @param body what runs while publishers are blocked
   */
  public void withMemoryAlarm(Runnable body) {
    requireLocal("raise a memory alarm");
    List<String> answer = Rabbitmqctl.run("eval", "vm_memory_monitor:get_vm_memory_high_watermark().");
    String before = answer.isEmpty() ? "" : answer.get(answer.size() - 1).trim();
    if (!before.matches("0?\\.[0-9]+|1(\\.0+)?")) {
      throw new IllegalStateException("the node's memory high watermark is '" + before + "', not a fraction: this test "
          + "only changes a relative watermark; set one (rabbitmqctl set_vm_memory_high_watermark 0.4) and run it again");
    }
    Rabbitmqctl.run("set_vm_memory_high_watermark", "0.00001");
    try {
      body.run();
    } finally {
      Rabbitmqctl.run("set_vm_memory_high_watermark", before);
    }
  }

  /**
   * Makes the server close every client connection on this vhost ({@code rabbitmqctl}).
   *
   * @param reason the reason the clients are given
   */
  public void closeAllConnections(String reason) {
    requireLocal("close connections");
    Rabbitmqctl.run("close_all_connections", "-p", virtualHost(), reason);
  }

  /**
   * Deletes every queue and exchange of this vhost whose name starts with one of the prefixes
   * (listed with {@code rabbitmqctl}, deleted over AMQP). For sweeping what tests created under
   * names they do not all know, such as queues an adapter derived from a destination.
   *
   * @param prefixes the starts of the names
   * @return how many queues and exchanges were deleted
   * @throws IOException when the connection to the broker fails
   * @throws TimeoutException when the broker does not answer in time
   */
  public int deleteNamesStartingWith(Collection<String> prefixes) throws IOException, TimeoutException {
    requireLocal("list queues");
    List<String> queues = listQueues().stream().filter(n -> startsWithAny(n, prefixes)).toList();
    List<String> exchanges = listExchanges().stream().filter(n -> startsWithAny(n, prefixes)).toList();
    if (queues.isEmpty() && exchanges.isEmpty()) {
      return 0;
    }
    try (Connection connection = connect("switchboard-testkit-cleanup")) {
      Channel channel = connection.createChannel();
      for (String queue : queues) {
        channel.queueDelete(queue);
      }
      for (String exchange : exchanges) {
        channel.exchangeDelete(exchange);
      }
    }
    return queues.size() + exchanges.size();
  }

  private static boolean startsWithAny(String name, Collection<String> prefixes) {
    return prefixes.stream().anyMatch(name::startsWith);
  }

  /**
   * Creates a virtual host ({@code rabbitmqctl add_vhost}); local server only. Delete it with
   * {@link #deleteVirtualHost(String)}, which deletes its queues and exchanges too.
   *
   * @param vhost the virtual host
   */
  public void addVirtualHost(String vhost) {
    requireLocal("add a vhost");
    Rabbitmqctl.run("add_vhost", vhost);
  }

  /**
   * Deletes a virtual host with everything in it; a missing one is not an error.
   *
   * @param vhost the virtual host
   */
  public void deleteVirtualHost(String vhost) {
    requireLocal("delete a vhost");
    if (Rabbitmqctl.run("list_vhosts", "name").contains(vhost)) {
      Rabbitmqctl.run("delete_vhost", vhost);
    }
  }

  /**
   * Creates a user without tags and without permissions ({@code rabbitmqctl add_user}); local
   * server only. The password is never part of an error message.
   *
   * @param user the user name
   * @param password its password
   */
  public void addUser(String user, String password) {
    requireLocal("add a user");
    Rabbitmqctl.runWithSecret(password, "add_user", user, password);
  }

  /**
   * Deletes a user; a missing one is not an error.
   *
   * @param user the user name
   */
  public void deleteUser(String user) {
    requireLocal("delete a user");
    if (Rabbitmqctl.run("list_users").stream().anyMatch(line -> line.split("\t", 2)[0].equals(user))) {
      Rabbitmqctl.run("delete_user", user);
    }
  }

  /**
   * Gives a user configure, write and read permission on everything in a vhost ({@code set_permissions}).
   *
   * @param vhost the virtual host
   * @param user the user name
   */
  public void grantAll(String vhost, String user) {
    setPermissions(vhost, user, ".*", ".*", ".*");
  }

  /**
   * Sets a user's permissions on a vhost ({@code rabbitmqctl set_permissions}): regular
   * expressions of the resource names the user may configure, write and read; {@code "^$"} for none.
   *
   * @param vhost the virtual host
   * @param user the user name
   * @param configure the names the user may configure
   * @param write the names the user may write to
   * @param read the names the user may read from
   */
  public void setPermissions(String vhost, String user, String configure, String write, String read) {
    requireLocal("set permissions");
    Rabbitmqctl.run("set_permissions", "-p", vhost, user, configure, write, read);
  }

  /**
   * Starts an extra TLS (amqps) listener on this local server, at run time through
   * {@code rabbitmqctl eval}, with the certificate and key of {@code tls}; the server's
   * configuration is not changed and it is not restarted. Close the listener to stop it.
   *
   * @param tls the certificate (for {@code 127.0.0.1}) and key the listener presents
   * @return the running listener
   * @throws IllegalStateException if the server is not local or does not start the listener
   */
  public RabbitTlsListener startTlsListener(io.switchboard.testkit.tls.TestCertificates tls) {
    requireLocal("start a TLS listener");
    return RabbitTlsListener.start(tls);
  }

  /**
   * {@return the connections a user has open, as the server sees them ({@code rabbitmqctl list_connections}, local
   * server only): one line per connection, {@code user<TAB>ssl<TAB>port}, where {@code ssl} is {@code true} for a
   * TLS connection and {@code port} is the server's listener port}
   *
   * @param user the user name
   */
  public List<String> connectionsOf(String user) {
    requireLocal("list connections");
    return Rabbitmqctl.run("list_connections", "user", "ssl", "port").stream()
        .filter(line -> line.split("\t", 2)[0].equals(user))
        .toList();
  }

  /**
   * Names of the queues on a vhost ({@code rabbitmqctl list_queues -p}, local server only).
   *
   * @param vhost the virtual host
   * @return the queue names
   */
  public List<String> queuesOf(String vhost) {
    requireLocal("list queues");
    return Rabbitmqctl.run("list_queues", "-p", vhost, "name");
  }

  /**
   * Names of the exchanges on a vhost ({@code rabbitmqctl list_exchanges -p}, local server only).
   *
   * @param vhost the virtual host
   * @return the exchange names
   */
  public List<String> exchangesOf(String vhost) {
    requireLocal("list exchanges");
    return Rabbitmqctl.run("list_exchanges", "-p", vhost, "name");
  }

  /** Names of the queues on this vhost ({@code rabbitmqctl}, local server only). */
  List<String> listQueues() {
    return Rabbitmqctl.run("list_queues", "-p", virtualHost(), "name");
  }

  /** Names of the exchanges on this vhost ({@code rabbitmqctl}, local server only). */
  List<String> listExchanges() {
    return Rabbitmqctl.run("list_exchanges", "-p", virtualHost(), "name");
  }

  /** {@return true when the server runs on this machine, so {@code rabbitmqctl} reaches it} */
  public boolean isLocal() {
    try {
      InetAddress address = InetAddress.getByName(host());
      return address.isLoopbackAddress() || address.isAnyLocalAddress();
    } catch (IOException e) {
      return false;
    }
  }

  private void requireLocal(String what) {
    if (!isLocal()) {
      throw new IllegalStateException("Cannot " + what + " on " + redactedUri()
          + ": rabbitmqctl reaches only a server on this machine; unset " + URI_ENV
          + " to use the local server.");
    }
  }

  private static String redact(URI uri) {
    String userInfo = uri.getRawUserInfo();
    if (userInfo == null || !userInfo.contains(":")) {
      return uri.toString();
    }
    String user = userInfo.substring(0, userInfo.indexOf(':'));
    return uri.toString().replace(userInfo + "@", user + ":***@");
  }

  @Override
  public String toString() {
    return "RabbitMqServer[" + redactedUri() + ", " + source + "]";
  }
}
