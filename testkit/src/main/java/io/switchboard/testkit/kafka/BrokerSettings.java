package io.switchboard.testkit.kafka;

import io.switchboard.testkit.tls.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration of one embedded single-node KRaft broker: its properties, the formatting of
 * its log directory, and the check that it accepts clients.
 */
final class BrokerSettings {

    private static final Logger log = LoggerFactory.getLogger(BrokerSettings.class);
    private static final String HOST = "127.0.0.1";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";

    private static final String SASL_SSL_LISTENER = "SASL_SSL";
    /** The one SASL mechanism the SASL_SSL listener enables. */
    static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

    private final int nodeId;
    private final Path logDirectory;
    private final String bootstrapServers;
    private final SaslSsl saslSsl;
    private final Properties properties = new Properties();

    /**
     * A SASL_SSL listener with SCRAM-SHA-512: the port clients use, the server's PKCS12 key store
     * and its password, and the SCRAM users (name to password) bootstrapped when the storage is formatted.
     */
    record SaslSsl(int port, Path keyStore, String keyStorePassword, Map<String, String> users) {
        private static final Pattern SCRAM_TOKEN = Pattern.compile("[A-Za-z0-9_-]{1,128}");

        String address() {
            return HOST + ":" + port;
        }

        /** Refuses a SCRAM user name or password with characters other than letters, digits, '_' and '-'. */
        static void checkUser(String username, String password) {
            if (!SCRAM_TOKEN.matcher(Objects.requireNonNull(username, "username")).matches()) {
                throw new IllegalArgumentException("SCRAM user name '" + username + "' must be 1 to 128 letters, digits, "
                        + "'_' or '-'");
            }
            if (!SCRAM_TOKEN.matcher(Objects.requireNonNull(password, "password")).matches()) {
                throw new IllegalArgumentException("The password of SCRAM user '" + username + "' must be 1 to 128 "
                        + "letters, digits, '_' or '-' (it is not shown here)");
            }
        }

        /** The kafka-clients properties to log in here as {@code username}, trusting {@code tls}'s certificate. */
        Map<String, String> clientProperties(String username, String password, TestCertificates tls) {
            Map<String, String> client = new LinkedHashMap<>();
            client.put("bootstrap.servers", address());
            client.put("security.protocol", "SASL_SSL");
            client.put("sasl.mechanism", SCRAM_MECHANISM);
            client.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                    + Objects.requireNonNull(username, "username") + "\" password=\""
                    + Objects.requireNonNull(password, "password") + "\";");
            client.put("ssl.truststore.type", tls.storeType());
            client.put("ssl.truststore.location", tls.trustStore().toString());
            client.put("ssl.truststore.password", tls.password());
            return client;
        }
    }

    private BrokerSettings(int nodeId, Path logDirectory, int brokerPort, int advertisedPort, int controllerPort,
            SaslSsl saslSsl, Map<String, String> overrides) {
        this.nodeId = nodeId;
        this.logDirectory = logDirectory;
        this.bootstrapServers = HOST + ":" + brokerPort;
        this.saslSsl = saslSsl;
        putDefaults();
        properties.putAll(overrides);
        // identity, listeners and storage are not overridable: the embedded broker owns them
        properties.put("process.roles", "broker,controller");
        properties.put("node.id", Integer.toString(nodeId));
        properties.put("controller.quorum.voters", nodeId + "@" + HOST + ":" + controllerPort);
        properties.put("listeners", "PLAINTEXT://" + bootstrapServers + "," + CONTROLLER_LISTENER + "://"
                + HOST + ":" + controllerPort);
        properties.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + advertisedPort);
        properties.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        properties.put("controller.listener.names", CONTROLLER_LISTENER);
        properties.put("inter.broker.listener.name", "PLAINTEXT");
        properties.put("log.dirs", logDirectory.toString());
        if (saslSsl != null) {
            putSaslSsl(saslSsl);
        }
    }

    /** The SASL_SSL listener next to PLAINTEXT (which stays the inter-broker listener and the testkit's own way in). */
    private void putSaslSsl(SaslSsl listener) {
        String prefix = "listener.name." + SASL_SSL_LISTENER.toLowerCase(java.util.Locale.ROOT) + ".";
        properties.put("listeners", properties.getProperty("listeners") + "," + SASL_SSL_LISTENER + "://" + listener.address());
        properties.put("advertised.listeners", properties.getProperty("advertised.listeners") + "," + SASL_SSL_LISTENER
                + "://" + listener.address());
        properties.put("listener.security.protocol.map", properties.getProperty("listener.security.protocol.map") + ","
                + SASL_SSL_LISTENER + ":SASL_SSL");
        properties.put(prefix + "sasl.enabled.mechanisms", SCRAM_MECHANISM);
        properties.put(prefix + SCRAM_MECHANISM.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        properties.put(prefix + "ssl.keystore.type", "PKCS12");
        properties.put(prefix + "ssl.keystore.location", listener.keyStore().toString());
        properties.put(prefix + "ssl.keystore.password", listener.keyStorePassword());
        properties.put(prefix + "ssl.key.password", listener.keyStorePassword());
        properties.put(prefix + "ssl.client.auth", "none");
    }

    static BrokerSettings onFreePorts(int nodeId, Path logDirectory, Map<String, String> overrides) {
        return onPorts(nodeId, logDirectory, 0, 0, null, overrides);
    }

    /**
     * Settings with the client listener on {@code brokerPort} (0: a free one), advertising
     * {@code advertisedPort} to clients (0: the listener's own port), the controller on a free port, and,
     * when {@code saslSsl} is not null, a SASL_SSL listener with its key store and users on a free port
     * (whatever port {@code saslSsl} names).
     */
    static BrokerSettings onPorts(int nodeId, Path logDirectory, int brokerPort, int advertisedPort,
            SaslSsl saslSsl, Map<String, String> overrides) {
        int listenerPort = brokerPort == 0 ? freePort() : brokerPort;
        int controllerPort = freePort();
        while (controllerPort == listenerPort || controllerPort == advertisedPort) {
            controllerPort = freePort();
        }
        SaslSsl listener = null;
        if (saslSsl != null) {
            int port = freePort();
            while (port == listenerPort || port == advertisedPort || port == controllerPort) {
                port = freePort();
            }
            listener = new SaslSsl(port, saslSsl.keyStore(), saslSsl.keyStorePassword(), Map.copyOf(saslSsl.users()));
        }
        return new BrokerSettings(nodeId, logDirectory, listenerPort, advertisedPort == 0 ? listenerPort : advertisedPort,
                controllerPort, listener, overrides);
    }

    /** The SASL_SSL listener, or null when the broker has none. */
    SaslSsl saslSsl() {
        return saslSsl;
    }

    /** The size of a segment's offset and time index files ({@code log.index.size.max.bytes}). */
    static final int INDEX_BYTES = 128 * 1024;

    private void putDefaults() {
        // one node: every internal topic with replication factor 1
        properties.put("offsets.topic.replication.factor", "1");
        properties.put("transaction.state.log.replication.factor", "1");
        properties.put("transaction.state.log.min.isr", "1");
        properties.put("share.coordinator.state.topic.replication.factor", "1");
        properties.put("share.coordinator.state.topic.min.isr", "1");
        properties.put("default.replication.factor", "1");
        properties.put("min.insync.replicas", "1");
        // fewer internal partitions make the first group and first transaction faster to set up
        properties.put("offsets.topic.num.partitions", "5");
        properties.put("transaction.state.log.num.partitions", "5");
        properties.put("group.initial.rebalance.delay.ms", "0");
        properties.put("auto.create.topics.enable", "true");
        properties.put("num.partitions", "1");
        // the log cleaner allocates this buffer eagerly; the default (128 MB) is a test heap's worth
        properties.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        // each segment's offset and time indexes are sparse files of this size, memory-mapped; the first touch of a
        // page faults in a readahead window of zeroed pages (8 MB on a machine with read_ahead_kb 8192), so with the
        // default 10 MB every new partition cost the broker ~16 MB of memset and the page cache to hold it: with 512
        // partitions the broker spent a core in kernel memset and ran at 4k msg/s. 128 KB holds 16k offset entries
        // (one per 4 KB of log, so a segment rolls at about 43 MB of records at the latest).
        properties.put("log.index.size.max.bytes", Integer.toString(INDEX_BYTES));
    }

    Properties properties() {
        return properties;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    Path logDirectory() {
        return logDirectory;
    }

    /** Formats the empty log directory as a new single-node cluster, as {@code kafka-storage format} does. */
    void formatStorage() {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        try (PrintStream printStream = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            new Formatter()
                    .setPrintStream(printStream)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setNodeId(nodeId)
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .setMetadataLogDirectory(logDirectory.toString())
                    .addDirectory(logDirectory.toString())
                    .setScramArguments(scramArguments())
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Could not format the embedded Kafka log directory " + logDirectory, e);
        }
        log.debug("Formatted embedded Kafka storage: {}", output.toString(StandardCharsets.UTF_8).trim());
    }

    /**
     * The SCRAM credentials to bootstrap, in {@code kafka-storage format --add-scram} syntax. Names and
     * passwords are restricted (see {@code EmbeddedKafka.Builder#saslSslScram}) so that they need no quoting.
     */
    private List<String> scramArguments() {
        if (saslSsl == null) {
            return List.of();
        }
        return saslSsl.users().entrySet().stream()
                .map(user -> SCRAM_MECHANISM + "=[name=" + user.getKey() + ",password=" + user.getValue() + "]")
                .toList();
    }

    /** Waits until the broker is registered, unfenced and answers clients. */
    void awaitReady(long timeoutSeconds) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (admin.describeCluster().nodes().get(timeoutSeconds, TimeUnit.SECONDS).isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Embedded Kafka at " + bootstrapServers
                            + " registered no broker within " + timeoutSeconds + " s");
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Embedded Kafka at " + bootstrapServers + " did not answer within "
                    + timeoutSeconds + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for embedded Kafka at " + bootstrapServers, e);
        }
    }

    /** A port of {@code 127.0.0.1} that was free a moment ago. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on " + HOST + " for embedded Kafka", e);
        }
    }
}
