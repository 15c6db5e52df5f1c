package io.switchboard.testkit.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
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
 * Running a KRaft server inside this JVM for {@link EmbeddedKafka}: starting it (with attempts),
 * stopping it, keeping Kafka from exiting the JVM, its directory, and creating topics.
 */
final class KafkaServers {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final AtomicBoolean exitProceduresReplaced = new AtomicBoolean();

    private KafkaServers() {}

    /** Starts a server with {@code settings} and waits until it accepts clients; shuts it down if it does not. */
    static KafkaRaftServer start(BrokerSettings settings, long readyTimeoutSeconds) {
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(settings.properties(), false), Time.SYSTEM);
        try {
            server.startup();
            settings.awaitReady(readyTimeoutSeconds);
            return server;
        } catch (RuntimeException e) {
            stop(server);
            throw e;
        }
    }

    static void stop(KafkaRaftServer server) {
        server.shutdown();
        server.awaitShutdown();
    }

    /**
     * Runs {@code attempt} up to {@code attempts} times, logging each failure and pausing {@code pause}
     * after it; when none succeeds, runs {@code giveUp} and throws with the last failure as the cause.
     */
    static <T> T withAttempts(int attempts, String failed, Duration pause, Supplier<T> attempt, Runnable giveUp) {
        RuntimeException failure = null;
        for (int i = 1; i <= attempts; i++) {
            try {
                return attempt.get();
            } catch (RuntimeException e) {
                log.warn("{}: attempt {} of {} failed", failed, i, attempts, e);
                failure = e;
                if (!pause.isZero()) {
                    LockSupport.parkNanos(pause.toNanos());
                }
            }
        }
        giveUp.run();
        throw new IllegalStateException(failed + " after " + attempts + " attempts; see the cause and the log above", failure);
    }

    /** Replaces Kafka's process-exit and halt procedures, once per JVM, with ones that only log. */
    static void replaceExitProcedures() {
        if (exitProceduresReplaced.compareAndSet(false, true)) {
            org.apache.kafka.common.utils.internals.Exit.setExitProcedure((status, message) ->
                    log.error("Embedded Kafka asked to exit the JVM with status {} ({}); ignored", status, message));
            org.apache.kafka.common.utils.internals.Exit.setHaltProcedure((status, message) ->
                    log.error("Embedded Kafka asked to halt the JVM with status {} ({}); ignored", status, message));
        }
    }

    static Path createDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temporary directory for embedded Kafka", e);
        }
    }

    static void deleteDirectory(Path directory) {
        try {
            Utils.delete(directory.toFile());
        } catch (IOException e) {
            log.warn("Could not delete the embedded Kafka directory {}", directory, e);
        }
    }

    /** Creates a topic (replication factor 1), or does nothing if one of that name exists already. */
    static void createTopic(String bootstrapServers, String topic, int partitions, long timeoutSeconds) {
        Objects.requireNonNull(topic, "topic");
        if (partitions < 1) {
            throw new IllegalArgumentException(
                    "partitions must be at least 1 but was " + partitions + " for topic '" + topic + "'");
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("Kafka refused to create topic '" + topic + "'", e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic '" + topic + "'", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not create topic '" + topic + "' within "
                    + timeoutSeconds + " s", e);
        }
    }
}
