package io.switchboard.testkit.rabbit;

import io.switchboard.testkit.tls.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An extra TLS (amqps) listener on the running local RabbitMQ node, started at run time with
 * {@code rabbitmqctl eval} and stopped by {@link #close()}: the server's configuration files are
 * not touched and the node is not restarted, so the listener lives only until it is closed (or,
 * at the latest, until the node restarts). Made by {@link RabbitMqServer#startTlsListener}.
 *
 * <p>It listens on a free port of {@code 127.0.0.1} with the certificate and key of a
 * {@link TestCertificates}, given to Erlang's TLS as DER bytes (no file the {@code rabbitmq} user
 * would have to read), TLS 1.2 and 1.3, no client certificate asked. A JVM shutdown hook stops
 * it if the test never closes it.
 */
public final class RabbitTlsListener implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RabbitTlsListener.class);
  private static final String HOST = "127.0.0.1";
  private static final int START_ATTEMPTS = 3;

  private final int port;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook;

  private RabbitTlsListener(int port) {
    this.port = port;
    this.shutdownHook = new Thread(this::stop, "rabbit-tls-listener-stop-" + port);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  static RabbitTlsListener start(TestCertificates tls) {
    Base64.Encoder base64 = Base64.getEncoder();
    String key = base64.encodeToString(tls.privateKeyPkcs8Der());
    String certificate = base64.encodeToString(tls.certificateDer());
    IllegalStateException failure = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      int port = freePort();
      String expression = "rabbit_networking:start_ssl_listener({\"" + HOST + "\", " + port + "}, "
          + "[{cert, base64:decode(\"" + certificate + "\")}, "
          + "{key, {'PrivateKeyInfo', base64:decode(\"" + key + "\")}}, "
          + "{versions, ['tlsv1.2', 'tlsv1.3']}, {verify, verify_none}, {fail_if_no_peer_cert, false}], 1).";
      List<String> answer = Rabbitmqctl.runWithSecret(key, "eval", expression);
      if (answer.equals(List.of("ok"))) {
        log.info("RabbitMQ TLS listener started on {}:{}", HOST, port);
        return new RabbitTlsListener(port);
      }
      // most likely the port, free a moment ago, was taken meanwhile
      failure = new IllegalStateException("RabbitMQ did not start a TLS listener on " + HOST + ":" + port
          + " (rabbit_networking:start_ssl_listener answered " + String.join(" ", answer).replace(key, "***") + ")");
      log.warn("TLS listener attempt {} of {} failed", attempt, START_ATTEMPTS, failure);
    }
    throw failure;
  }

  /**
   * The listener's port on {@code 127.0.0.1}.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * An {@code amqps} URI of this listener for a user and virtual host.
   *
   * @param user the user name
   * @param password the user's password
   * @param vhost the virtual host, {@code "/"} for the default one
   * @return {@code amqps://user:password@127.0.0.1:port/vhost}, the vhost URI-encoded
   */
  public String uri(String user, String password, String vhost) {
    return "amqps://" + user + ":" + password + "@" + HOST + ":" + port + "/"
        + java.net.URLEncoder.encode(vhost, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** {@return true while the node has a listener on this port} */
  public boolean isListening() {
    String listeners = String.join("", Rabbitmqctl.run("eval", "rabbit_networking:active_listeners()."))
        .replaceAll("\\s", "");
    return listeners.contains("'amqp/ssl'") && listeners.contains("{127,0,0,1}," + port + ",");
  }

  /** Stops the listener (and closes the connections it accepted); idempotent. */
  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs stop(), which does nothing now
    }
  }

  private void stop() {
    if (closed.compareAndSet(false, true)) {
      Rabbitmqctl.run("eval", "rabbit_networking:stop_tcp_listener({\"" + HOST + "\", " + port + "}).");
      log.info("RabbitMQ TLS listener on {}:{} stopped", HOST, port);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free port on " + HOST + " for a RabbitMQ TLS listener", e);
    }
  }

  @Override
  public String toString() {
    return "RabbitTlsListener[" + HOST + ":" + port + (closed.get() ? ", closed]" : "]");
  }
}
