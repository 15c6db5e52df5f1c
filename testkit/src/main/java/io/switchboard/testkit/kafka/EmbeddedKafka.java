package io.switchboard.testkit.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
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
 * <p>Starting the first broker replaces Kafka's process-exit and halt procedures with ones that
 * only log, so that a broker fault cannot terminate the test JVM; they stay replaced for the
 * life of the JVM.
 *
 * <p>Instances are thread-safe; {@link #close()} is idempotent.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final int NODE_ID = 1;
    private static final int START_ATTEMPTS = 3;
    private static final long READY_TIMEOUT_SECONDS = 60;
    private static final AtomicBoolean exitProceduresReplaced = new AtomicBoolean();
    private static EmbeddedKafka sharedInstance;

    private final KafkaRaftServer server;
    private final Path directory;
    private final String bootstrapServers;
    private final boolean shared;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedKafka(KafkaRaftServer server, Path directory, String bootstrapServers, boolean shared) {
        this.server = server;
        this.directory = directory;
        this.bootstrapServers = bootstrapServers;
        this.shared = shared;
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
            Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "embedded-kafka-shutdown"));
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
     * Creates a topic with the given number of partitions (replication factor 1), or does nothing
     * if a topic of that name exists already.
     *
     * @param topic the topic name
     * @param partitions the number of partitions, at least 1
     * @throws IllegalArgumentException if {@code partitions} is below 1
     * @throws IllegalStateException if the broker refuses the topic
     */
    public void createTopic(String topic, int partitions) {
        Objects.requireNonNull(topic, "topic");
        if (partitions < 1) {
            throw new IllegalArgumentException(
                    "partitions must be at least 1 but was " + partitions + " for topic '" + topic + "'");
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("Kafka refused to create topic '" + topic + "'", e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic '" + topic + "'", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not create topic '" + topic + "' within "
                    + READY_TIMEOUT_SECONDS + " s", e);
        }
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
        stop();
    }

    private void stop() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            deleteDirectory(directory);
            log.info("Embedded Kafka broker at {} stopped", bootstrapServers);
        }
    }

    Path directory() {
        return directory;
    }

    @Override
    public String toString() {
        return "EmbeddedKafka[" + bootstrapServers + (closed.get() ? ", closed]" : "]");
    }

    private static void replaceExitProcedures() {
        if (exitProceduresReplaced.compareAndSet(false, true)) {
            org.apache.kafka.common.utils.internals.Exit.setExitProcedure((status, message) ->
                    log.error("Embedded Kafka asked to exit the JVM with status {} ({}); ignored", status, message));
            org.apache.kafka.common.utils.internals.Exit.setHaltProcedure((status, message) ->
                    log.error("Embedded Kafka asked to halt the JVM with status {} ({}); ignored", status, message));
        }
    }

    private static void deleteDirectory(Path directory) {
        try {
            Utils.delete(directory.toFile());
        } catch (IOException e) {
            log.warn("Could not delete the embedded Kafka directory {}", directory, e);
        }
    }

    /** Settings of an {@link EmbeddedKafka} broker before it starts. */
    public static final class Builder {

        private final Map<String, String> overrides = new LinkedHashMap<>();

        private Builder() {
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
            replaceExitProcedures();
            RuntimeException failure = null;
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                try {
                    return startOnce(shared);
                } catch (RuntimeException e) {
                    // most likely a free port taken by someone else between probing and binding
                    log.warn("Embedded Kafka start attempt {} of {} failed", attempt, START_ATTEMPTS, e);
                    failure = e;
                }
            }
            throw new IllegalStateException("Embedded Kafka did not start after " + START_ATTEMPTS
                    + " attempts; see the cause and the log above", failure);
        }

        private EmbeddedKafka startOnce(boolean shared) {
            Path directory = createDirectory();
            KafkaRaftServer server = null;
            try {
                BrokerSettings settings = BrokerSettings.onFreePorts(NODE_ID, directory.resolve("data"), overrides);
                settings.formatStorage();
                long started = System.nanoTime();
                server = new KafkaRaftServer(KafkaConfig.fromProps(settings.properties(), false), Time.SYSTEM);
                server.startup();
                settings.awaitReady(READY_TIMEOUT_SECONDS);
                log.info("Embedded Kafka broker ready at {} in {} ms", settings.bootstrapServers(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                return new EmbeddedKafka(server, directory, settings.bootstrapServers(), shared);
            } catch (RuntimeException e) {
                if (server != null) {
                    server.shutdown();
                    server.awaitShutdown();
                }
                deleteDirectory(directory);
                throw e;
            }
        }

        private static Path createDirectory() {
            try {
                return Files.createTempDirectory("switchboard-kafka-");
            } catch (IOException e) {
                throw new UncheckedIOException("Could not create a temporary directory for embedded Kafka", e);
            }
        }
    }
}
