package io.switchboard.testkit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

    private final int nodeId;
    private final Path logDirectory;
    private final String bootstrapServers;
    private final Properties properties = new Properties();

    private BrokerSettings(int nodeId, Path logDirectory, int brokerPort, int advertisedPort, int controllerPort,
            Map<String, String> overrides) {
        this.nodeId = nodeId;
        this.logDirectory = logDirectory;
        this.bootstrapServers = HOST + ":" + brokerPort;
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
    }

    static BrokerSettings onFreePorts(int nodeId, Path logDirectory, Map<String, String> overrides) {
        return onPorts(nodeId, logDirectory, 0, 0, overrides);
    }

    /**
     * Settings with the client listener on {@code brokerPort} (0: a free one), advertising
     * {@code advertisedPort} to clients (0: the listener's own port), and the controller on a free port.
     */
    static BrokerSettings onPorts(int nodeId, Path logDirectory, int brokerPort, int advertisedPort,
            Map<String, String> overrides) {
        int listenerPort = brokerPort == 0 ? freePort() : brokerPort;
        int controllerPort = freePort();
        while (controllerPort == listenerPort || controllerPort == advertisedPort) {
            controllerPort = freePort();
        }
        return new BrokerSettings(nodeId, logDirectory, listenerPort, advertisedPort == 0 ? listenerPort : advertisedPort,
                controllerPort, overrides);
    }

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
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Could not format the embedded Kafka log directory " + logDirectory, e);
        }
        log.debug("Formatted embedded Kafka storage: {}", output.toString(StandardCharsets.UTF_8).trim());
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
