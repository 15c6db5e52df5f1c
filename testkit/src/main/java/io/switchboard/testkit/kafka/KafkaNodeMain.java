package io.switchboard.testkit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One node of a {@link KafkaCluster}, in a JVM of its own so that a test can kill it with
 * {@code kill -9} or freeze it with {@code SIGSTOP}. Arguments: the cluster id, then
 * {@code name=value} broker properties (with {@code node.id} and {@code log.dirs}). Formats the
 * log directory on first start (as {@code kafka-storage format} does), starts the combined broker
 * and controller, prints {@code @@ started}, and shuts down cleanly (a controlled shutdown) on
 * SIGTERM.
 */
public final class KafkaNodeMain {

    private KafkaNodeMain() {}

    /**
     * Entry point; see the class comment for the arguments.
     *
     * @param args the arguments
     * @throws Exception any failure, which ends the node with its stack trace in its log
     */
    public static void main(String[] args) throws Exception {
        String clusterId = args[0];
        Properties properties = new Properties();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            properties.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Path directory = Path.of(properties.getProperty("log.dirs"));
        if (!Files.exists(directory.resolve("meta.properties"))) {
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            try (PrintStream printStream = new PrintStream(output, true, StandardCharsets.UTF_8)) {
                new Formatter()
                        .setPrintStream(printStream)
                        .setClusterId(clusterId)
                        .setNodeId(Integer.parseInt(properties.getProperty("node.id")))
                        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                        .setControllerListenerName(properties.getProperty("controller.listener.names"))
                        .setMetadataLogDirectory(directory.toString())
                        .addDirectory(directory.toString())
                        .run();
            }
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(properties, false), Time.SYSTEM);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdown();
            server.awaitShutdown();
        }, "kafka-node-shutdown"));
        server.startup();
        System.out.println("@@ started");
        System.out.flush();
        server.awaitShutdown();
    }
}
