package io.switchboard.testkit.kafka;

import io.switchboard.testkit.tls.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaRaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Apache Kafka broker (KRaft mode, combined broker and controller) running
 * inside the current JVM, for tests.
 *
 * <p>The broker listens on free ports of {@code 127.0.0.1}, keeps its data in a fresh temporary
 * directory and is configured for one node: every internal topic has replication factor 1,
 * consumer groups rebalance without the initial delay, and topics are created automatically on
 * first use. Starting takes a few seconds, stopping well under one.
 *
 * <h2>Using it in your own tests</h2>
 *
 * Add {@code io.switchboard:switchboard-testkit} with test scope. Most test suites should share
 * one broker per test JVM; {@link #shared()} starts it on first use and stops it when the JVM
 * exits:
 *
 * <pre>{@code
 * class OrderEventsTest {
 *     static final EmbeddedKafka kafka = EmbeddedKafka.shared();
 *
 *     @Test
 *     void publishesOrders() {
 *         Map<String, Object> config = Map.of(
 *                 ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
 *         // ... create clients with config and use unique topic names per test
 *     }
 * }
 * }</pre>
 *
 * A test that needs a broker of its own (special broker settings, or a broker it stops) starts
 * one and closes it:
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder()
 *         .brokerProperty("log.retention.ms", "1000")
 *         .start()) {
 *     String bootstrap = kafka.bootstrapServers();
 *     ...
 * }
 * }</pre>
 *
 * A broker of its own can also fail and come back: {@link #stop()} and {@link #restart()} stop it
 * and start it again on the same data directory and ports, as a restarted broker process would.
 * With {@link Builder#port(int)} and {@link Builder#advertisedPort(int)} clients reach it only
 * through a proxy in front of it (testkit's {@code TcpProxy}), whose faults they then see.
 *
 * <p>A broker of its own can also require TLS and a login: {@link Builder#saslSslScram(String, String)}
 * adds a SASL_SSL listener (SCRAM-SHA-512, a self-signed certificate made at start) next to the
 * PLAINTEXT one, and {@link #saslSslClientProperties(String, String)} gives what a client sets to use it:
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().saslSslScram("app", "app-secret").start()) {
 *     Map<String, String> client = kafka.saslSslClientProperties("app", "app-secret");
 *     // bootstrap.servers, security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.*
 * }
 * }</pre>
 *
 * <p>Starting the first broker replaces Kafka's process-exit and halt procedures with ones that
 * only log, so that a broker fault cannot terminate the test JVM; they stay replaced for the
 * life of the JVM.
 *
 * <p>Instances are thread-safe; {@link #close()} is idempotent.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Threads the broker starts once clients use it (its executors and further scheduler threads), for
     * {@link io.switchboard.testkit.ThreadLeaks#ignoring}: none is a client's ({@code kafka-producer-network-thread}, ...). */
    public static final String THREADS = "executor-.*|kafka-scheduler-\\d+";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final int NODE_ID = 1;
    private static final int START_ATTEMPTS = 3;
    private static final long READY_TIMEOUT_SECONDS = 60;
    private static EmbeddedKafka sharedInstance;

    private final BrokerSettings settings;
    private final Path directory;
    private final String bootstrapServers;
    private final boolean shared;
    private final TestCertificates tls; // null without a SASL_SSL listener
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile KafkaRaftServer server; // null while stopped; changed only under this object's lock

    private EmbeddedKafka(KafkaRaftServer server, BrokerSettings settings, Path directory, boolean shared,
            TestCertificates tls) {
        this.server = server;
        this.settings = settings;
        this.directory = directory;
        this.bootstrapServers = settings.bootstrapServers();
        this.shared = shared;
        this.tls = tls;
    }

    /**
     * Starts a broker with the default settings; the caller closes it.
     *
     * @return the running broker
     * @throws IllegalStateException if the broker does not start
     */
    public static EmbeddedKafka start() {
        return builder().start();
    }

    /**
     * Returns a builder for a broker with settings of its own.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the broker shared by every test of this JVM, starting it on the first call.
     *
     * <p>The shared broker stops when the JVM exits (through a shutdown hook); calling
     * {@link #close()} on it does nothing, so one test cannot pull the broker from under another.
     * Tests sharing it should use topic and group names of their own.
     *
     * @return the shared running broker
     * @throws IllegalStateException if the broker does not start
     */
    public static synchronized EmbeddedKafka shared() {
        if (sharedInstance == null) {
            EmbeddedKafka kafka = new Builder().start(true);
            Runtime.getRuntime().addShutdownHook(new Thread(kafka::shutdownAndDelete, "embedded-kafka-shutdown"));
            sharedInstance = kafka;
        }
        return sharedInstance;
    }

    /**
     * Returns the address clients connect to, for {@code bootstrap.servers}.
     *
     * @return {@code host:port} of the broker's PLAINTEXT listener
     */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Returns the address of the SASL_SSL listener that {@link Builder#saslSslScram(String, String)} added.
     *
     * @return {@code host:port} of the SASL_SSL listener
     * @throws IllegalStateException if the broker was built without one
     */
    public String saslSslBootstrapServers() {
        return requireSaslSsl().address();
    }

    /**
     * Returns the PKCS12 trust store that holds the SASL_SSL listener's self-signed certificate (made at
     * start, deleted on close), for the clients' {@code ssl.truststore.location}.
     *
     * @return the trust store's path
     * @throws IllegalStateException if the broker was built without a SASL_SSL listener
     */
    public Path trustStore() {
        requireSaslSsl();
        return tls.trustStore();
    }

    /**
     * Returns the password of {@link #trustStore()}.
     *
     * @return the trust store's password
     * @throws IllegalStateException if the broker was built without a SASL_SSL listener
     */
    public String trustStorePassword() {
        requireSaslSsl();
        return tls.password();
    }

    /**
     * Returns the kafka-clients properties for the SASL_SSL listener as the given SCRAM user:
     * {@code bootstrap.servers}, {@code security.protocol=SASL_SSL}, {@code sasl.mechanism=SCRAM-SHA-512},
     * {@code sasl.jaas.config} and the trust store ({@code ssl.truststore.*}). The password is not
     * checked here: a wrong one is refused by the broker.
     *
     * @param username the SCRAM user
     * @param password the password to log in with
     * @return the client properties, without any prefix
     * @throws IllegalStateException if the broker was built without a SASL_SSL listener
     */
    public Map<String, String> saslSslClientProperties(String username, String password) {
        return requireSaslSsl().clientProperties(username, password, tls);
    }

    private BrokerSettings.SaslSsl requireSaslSsl() {
        BrokerSettings.SaslSsl listener = settings.saslSsl();
        if (listener == null) {
            throw new IllegalStateException("This embedded Kafka (" + bootstrapServers + ") has no SASL_SSL listener; "
                    + "build it with EmbeddedKafka.builder().saslSslScram(user, password)");
        }
        return listener;
    }

    /**
     * Creates a topic with the given number of partitions (replication factor 1), or does nothing
     * if a topic of that name exists already.
     *
     * @param topic the topic name
     * @param partitions the number of partitions, at least 1
     * @throws IllegalArgumentException if {@code partitions} is below 1
     * @throws IllegalStateException if the broker refuses the topic
     */
    public void createTopic(String topic, int partitions) {
        KafkaServers.createTopic(bootstrapServers, topic, partitions, READY_TIMEOUT_SECONDS);
    }

    /**
     * Stops the broker and deletes its directory. Does nothing on the {@linkplain #shared() shared}
     * broker or when already closed.
     */
    @Override
    public void close() {
        if (shared) {
            log.debug("close() ignored on the shared embedded Kafka broker; it stops when the JVM exits");
            return;
        }
        shutdownAndDelete();
    }

    /**
     * Stops the broker (broker and KRaft controller) but keeps its data directory and ports, as a
     * crashed or restarting broker process would: clients see the connections close and new ones
     * refused until {@link #restart()}. Does nothing when already stopped.
     *
     * @throws IllegalStateException on the {@linkplain #shared() shared} broker, which other tests use,
     *         or when closed
     */
    public synchronized void stop() {
        requireOwnAndOpen("stop()");
        if (server == null) {
            return;
        }
        long started = System.nanoTime();
        try {
            KafkaServers.stop(server);
        } finally {
            server = null;
        }
        log.info("Embedded Kafka broker at {} stopped in {} ms, data kept in {}", bootstrapServers,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), directory);
    }

    /**
     * Starts the broker again on the same data directory and ports, stopping it first if it is
     * running, and waits until it accepts clients. Topics, records and committed offsets survive.
     *
     * @throws IllegalStateException on the {@linkplain #shared() shared} broker, when closed, or if the
     *         broker does not come back (for example because another process took its port meanwhile)
     */
    public synchronized void restart() {
        stop();
        server = KafkaServers.withAttempts(START_ATTEMPTS, "Embedded Kafka at " + bootstrapServers + " did not restart",
                // most likely a port still held by the stopped broker's sockets; they go within moments
                Duration.ofMillis(500), () -> {
                    long started = System.nanoTime();
                    KafkaRaftServer restarted = KafkaServers.start(settings, READY_TIMEOUT_SECONDS);
                    log.info("Embedded Kafka broker at {} restarted in {} ms", bootstrapServers,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    return restarted;
                }, () -> { });
    }

    /**
     * Tells whether the broker runs: true from start until {@link #stop()} or {@link #close()}, and
     * again after {@link #restart()}.
     *
     * @return true while the broker runs
     */
    public boolean isRunning() {
        return server != null;
    }

    private void requireOwnAndOpen(String operation) {
        if (shared) {
            throw new IllegalStateException(operation + " is not allowed on the shared embedded Kafka broker, which "
                    + "other tests use; start a broker of your own with EmbeddedKafka.builder().start()");
        }
        if (closed.get()) {
            throw new IllegalStateException(operation + " on a closed embedded Kafka broker (" + bootstrapServers + ")");
        }
    }

    private synchronized void shutdownAndDelete() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (server != null) {
                KafkaServers.stop(server);
            }
        } finally {
            server = null;
            KafkaServers.deleteDirectory(directory);
            if (tls != null) {
                tls.close();
            }
            log.info("Embedded Kafka broker at {} stopped", bootstrapServers);
        }
    }

    Path directory() {
        return directory;
    }

    @Override
    public String toString() {
        return "EmbeddedKafka[" + bootstrapServers + (closed.get() ? ", closed]" : isRunning() ? "]" : ", stopped]");
    }

    /** Settings of an {@link EmbeddedKafka} broker before it starts. */
    public static final class Builder {

        private final Map<String, String> overrides = new LinkedHashMap<>();
        private final Map<String, String> scramUsers = new LinkedHashMap<>();
        private int port;
        private int advertisedPort;

        private Builder() {
        }

        /**
         * Listens for clients on this port of {@code 127.0.0.1} instead of a free one, for example
         * one a {@code TcpProxy} in front of the broker forwards to. Starting fails if the port is
         * taken. The port stays the same across {@link EmbeddedKafka#restart()} either way.
         *
         * @param port the client listener's port, 1 to 65535
         * @return this builder
         */
        public Builder port(int port) {
            this.port = requirePort(port, "port");
            return this;
        }

        /**
         * Advertises this port of {@code 127.0.0.1} to clients instead of the listener's own, so that
         * after bootstrapping every client connects there: the port of a proxy in front of the
         * broker, which makes the proxy the only way in. The proxy must forward to
         * {@link #port(int)} before the broker starts, since starting waits for the broker to answer
         * through it. The KRaft controller listener stays direct, and
         * {@link EmbeddedKafka#bootstrapServers()} stays the listener's own address.
         *
         * @param port the advertised port, 1 to 65535
         * @return this builder
         */
        public Builder advertisedPort(int port) {
            this.advertisedPort = requirePort(port, "advertisedPort");
            return this;
        }

        private static int requirePort(int port, String name) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(name + " must be between 1 and 65535 but was " + port);
            }
            return port;
        }

        /**
         * Adds a second client listener, SASL_SSL with SCRAM-SHA-512 only, on a free port of
         * {@code 127.0.0.1}, and a SCRAM-SHA-512 user that may log in there; call it again for more users.
         * The listener's certificate is self-signed for {@code 127.0.0.1} and {@code localhost}, made with
         * {@code keytool} at start and deleted on close; clients trust it through {@link #trustStore()}
         * ({@link #saslSslClientProperties(String, String)} gives every client property). The users are
         * written into the cluster metadata when the storage is formatted, so they can log in as soon as
         * the broker is ready. The PLAINTEXT listener stays, for the broker itself and for tests.
         *
         * @param username the user's name: letters, digits, {@code _} and {@code -}
         * @param password the user's password: letters, digits, {@code _} and {@code -}
         * @return this builder
         * @throws IllegalArgumentException if the name or password has other characters (never shown)
         */
        public Builder saslSslScram(String username, String password) {
            BrokerSettings.SaslSsl.checkUser(username, password);
            scramUsers.put(username, password);
            return this;
        }

        /**
         * Sets a broker property (as in {@code server.properties}), overriding the embedded
         * default. Listener, node and directory settings are chosen by {@link EmbeddedKafka}.
         *
         * @param name the property name, for example {@code "log.retention.ms"}
         * @param value the property value
         * @return this builder
         */
        public Builder brokerProperty(String name, String value) {
            overrides.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Starts the broker and waits until it accepts clients; the caller closes it.
         *
         * @return the running broker
         * @throws IllegalStateException if the broker does not start
         */
        public EmbeddedKafka start() {
            return start(false);
        }

        EmbeddedKafka start(boolean shared) {
            KafkaServers.replaceExitProcedures();
            TestCertificates tls = scramUsers.isEmpty() ? null : TestCertificates.generate();
            // a failed attempt most likely met a free port taken by someone else between probing and binding
            return KafkaServers.withAttempts(START_ATTEMPTS, "Embedded Kafka did not start", Duration.ZERO,
                    () -> startOnce(shared, tls), () -> {
                        if (tls != null) {
                            tls.close();
                        }
                    });
        }

        private EmbeddedKafka startOnce(boolean shared, TestCertificates tls) {
            Path directory = KafkaServers.createDirectory("switchboard-kafka-");
            try {
                BrokerSettings.SaslSsl saslSsl = tls == null ? null
                        : new BrokerSettings.SaslSsl(0, tls.keyStore(), tls.password(), scramUsers);
                BrokerSettings settings = BrokerSettings.onPorts(NODE_ID, directory.resolve("data"), port,
                        advertisedPort, saslSsl, overrides);
                settings.formatStorage();
                long started = System.nanoTime();
                KafkaRaftServer server = KafkaServers.start(settings, READY_TIMEOUT_SECONDS);
                log.info("Embedded Kafka broker ready at {}{} in {} ms", settings.bootstrapServers(),
                        settings.saslSsl() == null ? "" : " (SASL_SSL at " + settings.saslSsl().address() + ")",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                return new EmbeddedKafka(server, settings, directory, shared, tls);
            } catch (RuntimeException e) {
                KafkaServers.deleteDirectory(directory);
                throw e;
            }
        }
    }
}
