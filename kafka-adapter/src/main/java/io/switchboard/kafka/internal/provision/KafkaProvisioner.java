package io.switchboard.kafka.internal.provision;

import io.switchboard.ConfigurationException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and deletes topics through the Admin client, and reads consumer lag. Creation waits until
 * every partition of the topic has a leader, so that clients created next see the topic.
 *
 * <p>Destination settings: {@code replication.factor} (default: the broker's
 * {@code default.replication.factor}, or {@code kafka.replication-factor}); every other setting is
 * a topic config such as {@code retention.ms} or {@code cleanup.policy}.
 */
public final class KafkaProvisioner implements Provisioner, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaProvisioner.class);
    private static final String REPLICATION_FACTOR = "replication.factor";

    private final KafkaClientConfig config;
    private final Duration timeout;
    private final Optional<Short> defaultReplicationFactor;
    private final Object lock = new Object();
    private Admin admin;
    private boolean closed;
    private final Duration connectTimeout;
    private volatile boolean reached;
    /** Topics this adapter created or found ready. */
    private final java.util.Set<String> ensured = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The brokers of the cluster, as first seen. */
    private volatile int brokers;

    public KafkaProvisioner(KafkaClientConfig config) {
        this.config = config;
        this.timeout = config.duration("admin-timeout", Duration.ofSeconds(30), Map.of());
        this.connectTimeout = config.duration("connect-timeout", Duration.ofSeconds(5), Map.of());
        String factor = config.brokerConfig().get(KafkaClientConfig.PREFIX + "replication-factor");
        this.defaultReplicationFactor = factor == null ? Optional.empty()
                : Optional.of(replicationFactor(KafkaClientConfig.PREFIX + "replication-factor", factor));
    }

    /**
     * Before the first admin operation: a broker must answer at the bootstrap address within
     * {@code kafka.connect-timeout} (5s), else a clear error names the address and the fix, and the
     * admin client is closed so that its reconnect attempts stop (instead of a topic-creation time-out
     * after {@code kafka.admin-timeout} and a log full of reconnects).
     */
    private void requireReachable() {
        if (reached) {
            return;
        }
        String servers = BrokerConfig.printable("bootstrap.servers",
                config.brokerConfig().get(KafkaClientConfig.PREFIX + "bootstrap.servers"));
        try {
            var nodes = admin().describeCluster(new DescribeClusterOptions().timeoutMs((int) Math.min(Integer.MAX_VALUE,
                    connectTimeout.toMillis()))).nodes().get(connectTimeout.toMillis() + 500, TimeUnit.MILLISECONDS);
            brokers = nodes.size();
            reached = true;
        } catch (ExecutionException e) {
            closeAdmin();
            if (e.getCause() instanceof AuthenticationException refused) {
                throw refused(servers, refused);
            }
            throw noAnswer(servers, e);
        } catch (TimeoutException e) {
            closeAdmin();
            throw noAnswer(servers, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while connecting to Kafka at " + servers, e);
        }
    }

    private SwitchboardException noAnswer(String servers, Exception cause) {
        String protocol = config.brokerConfig().get(KafkaClientConfig.PREFIX + "security.protocol", "PLAINTEXT");
        String hint = protocol.trim().equalsIgnoreCase("PLAINTEXT") ? "; if the broker's listener at that address "
                + "requires TLS or SASL, set kafka.security.protocol (SSL, SASL_SSL or SASL_PLAINTEXT) with its "
                + "kafka.ssl.* and kafka.sasl.* properties" : "";
        return new SwitchboardException("No Kafka broker answered at " + servers + " within " + connectTimeout
                + " (broker instance '" + config.brokerConfig().instanceName() + "'); start the broker or correct "
                + "kafka.bootstrap.servers (kafka.connect-timeout sets how long to wait)" + hint, cause);
    }

    /**
     * The broker answered but refused the client: a TLS handshake that failed (a certificate not
     * trusted, a host name that does not match) or a SASL login with wrong credentials. Kafka's
     * messages name neither password, so the cause's message is kept.
     */
    private SwitchboardException refused(String servers, AuthenticationException cause) {
        String instance = " (broker instance '" + config.brokerConfig().instanceName() + "')";
        if (cause instanceof SslAuthenticationException) {
            return new SwitchboardException("The TLS handshake with the Kafka broker at " + servers + " failed" + instance
                    + ": " + cause.getMessage() + "; make kafka.ssl.truststore.location (with kafka.ssl.truststore.password "
                    + "and kafka.ssl.truststore.type) hold the certificate that signed the broker's, and check that the "
                    + "broker's certificate names the host in kafka.bootstrap.servers", cause);
        }
        String mechanism = config.brokerConfig().get(KafkaClientConfig.PREFIX + "sasl.mechanism", "GSSAPI");
        return new SwitchboardException("The Kafka broker at " + servers + " refused the login" + instance + " with SASL "
                + "mechanism " + mechanism + ": " + cause.getMessage() + "; correct the user name and password in "
                + "kafka.sasl.jaas.config, or kafka.sasl.mechanism if the broker expects another one", cause);
    }

    private void closeAdmin() {
        Admin a;
        synchronized (lock) {
            a = admin;
            admin = null;
        }
        if (a != null) {
            a.close(Duration.ZERO);
        }
    }

    @Override
    public void ensureDestination(DestinationSpec spec) {
        if (ensured.contains(spec.name())) {
            return; // made or found by this adapter already: no Admin round trip, which a broker that hangs could stall
        }
        requireReachable();
        NewTopic topic = newTopic(spec);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                get(admin().createTopics(List.of(topic)).all(), "create topic '" + spec.name() + "'");
                log.debug("Created topic {}", topic);
                break;
            } catch (ApiException e) {
                if (!(e instanceof TopicExistsException)) {
                    throw new SwitchboardException("Kafka refused to create topic '" + spec.name() + "' with "
                            + spec.partitions() + " partition(s) and settings " + spec.settings() + ": " + e.getMessage()
                            + "; correct the destination settings or the broker's permissions", e);
                }
                if (topicReady(spec.name())) {
                    warnIfUnderReplicated(spec.name());
                    ensured.add(spec.name());
                    return;
                }
                // still being deleted: wait until it is gone, then create it anew
                if (System.nanoTime() > deadline) {
                    throw new SwitchboardException("Kafka topic '" + spec.name() + "' exists but has no leader for every "
                            + "partition after " + timeout + "; check the brokers' health", e);
                }
                pause();
            }
        }
        awaitCondition(() -> topicReady(spec.name()), "topic '" + spec.name() + "' to have a leader for every partition");
        warnIfUnderReplicated(spec.name());
        ensured.add(spec.name());
    }

    /**
     * Creates the destinations not made or found yet in one {@code createTopics} call and waits for their leaders with
     * one {@code describeTopics} per round, so that a subscription's destination and dead-letter topic (and many
     * destinations' topics) cost one round trip, not one each. A topic that exists already, or that Kafka refuses,
     * goes the one-by-one way of {@link #ensureDestination}, which says what went wrong.
     */
    @Override
    public void ensureDestinations(List<DestinationSpec> specs) {
        createDestinations(specs).run();
    }

    /**
     * As {@link #ensureDestinations}, returning once Kafka has created the new topics: the returned wait (bounded by
     * {@code kafka.admin-timeout} from the creation) returns once every partition has a leader and is online on it.
     * Between the two a consumer can already subscribe (its group join and metadata overlap the broker's work; its
     * offset lookups wait for the leaders as a plain consumer's do), while a producer's first records must wait
     * (KAFKA-15591, see {@link PartitionsOnline}).
     */
    @Override
    public Runnable createDestinations(List<DestinationSpec> specs) {
        List<DestinationSpec> missing = specs.stream().filter(s -> !ensured.contains(s.name())).distinct().toList();
        if (missing.isEmpty()) {
            return () -> { };
        }
        requireReachable();
        Map<String, KafkaFuture<Void>> created = admin().createTopics(missing.stream().map(this::newTopic).toList()).values();
        List<String> made = new java.util.ArrayList<>();
        for (DestinationSpec spec : missing) {
            try {
                get(created.get(spec.name()), "create topic '" + spec.name() + "'");
                made.add(spec.name());
            } catch (ApiException e) {
                ensureDestination(spec); // exists (perhaps still being deleted) or refused: the single path tells
            }
        }
        if (made.isEmpty()) {
            return () -> { };
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        return () -> {
            Set<String> late = PartitionsOnline.await(admin(), made, this::describeKnown, timeout, deadline);
            if (!late.isEmpty()) {
                throw new SwitchboardException("Timed out after " + timeout + " waiting for Kafka topics " + late + " (of "
                        + made.size() + " created) to have a leader for every partition, online on it; check the brokers' "
                        + "health or raise kafka.admin-timeout");
            }
            made.forEach(this::warnIfUnderReplicated);
            ensured.addAll(made);
        };
    }

    private NewTopic newTopic(DestinationSpec spec) {
        Map<String, String> topicConfigs = new HashMap<>(spec.settings());
        String factor = topicConfigs.remove(REPLICATION_FACTOR);
        return new NewTopic(spec.name(), Optional.of(spec.partitions()),
                factor == null ? defaultReplicationFactor : Optional.of(replicationFactor(REPLICATION_FACTOR, factor)))
                .configs(topicConfigs);
    }

    @Override
    public void deleteDestination(String name) {
        ensured.remove(name);
        requireReachable();
        try {
            get(admin().deleteTopics(List.of(name)).all(), "delete topic '" + name + "'");
        } catch (UnknownTopicOrPartitionException e) {
            return;
        } catch (ApiException e) {
            throw new SwitchboardException("Kafka refused to delete topic '" + name + "': " + e.getMessage(), e);
        }
        awaitCondition(() -> !get(admin().listTopics().names(), "list topics").contains(name),
                "topic '" + name + "' to disappear");
    }

    /** {@return the names of the cluster's topics, internal ones left out, in one Admin call} */
    public Set<String> topicNames() {
        return get(admin().listTopics().names(), "list topics");
    }

    /** Per partition of the topic: records not yet committed by the group (end offset minus committed offset). */
    public Map<Integer, Long> lag(String topic, String group) {
        TopicDescription description;
        try {
            description = get(admin().describeTopics(List.of(topic)).allTopicNames(), "describe topic '" + topic + "'").get(topic);
        } catch (UnknownTopicOrPartitionException e) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (TopicPartitionInfo info : description.partitions()) {
            latest.put(new TopicPartition(topic, info.partition()), OffsetSpec.latest());
            earliest.put(new TopicPartition(topic, info.partition()), OffsetSpec.earliest());
        }
        ListConsumerGroupOffsetsResult committedResult = admin().listConsumerGroupOffsets(group);
        Map<TopicPartition, OffsetAndMetadata> committed = get(committedResult.partitionsToOffsetAndMetadata(),
                "read the offsets of group '" + group + "'");
        var ends = get(admin().listOffsets(latest).all(), "read the end offsets of '" + topic + "'");
        var starts = get(admin().listOffsets(earliest).all(), "read the start offsets of '" + topic + "'");
        Map<Integer, Long> lag = new HashMap<>();
        ends.forEach((partition, end) -> {
            OffsetAndMetadata done = committed.get(partition);
            long from = done != null ? done.offset() : starts.get(partition).offset();
            lag.put(partition.partition(), Math.max(0, end.offset() - from));
        });
        return lag;
    }

    /** Deletes a consumer group that is no longer used (a broadcast subscriber's); failures are only logged. */
    public void deleteGroupQuietly(String group) {
        try {
            admin().deleteConsumerGroups(Set.of(group)).all().whenComplete((ignored, error) -> {
                if (error != null) {
                    log.debug("Could not delete consumer group '{}': {}", group, error.toString());
                }
            });
        } catch (RuntimeException e) {
            log.debug("Could not delete consumer group '{}': {}", group, e.toString());
        }
    }

    private void warnIfUnderReplicated(String name) {
        ReplicationCheck.run(this, name, brokers, config.brokerConfig(), timeout);
    }

    private boolean topicReady(String name) {
        return topicsReady(List.of(name));
    }

    private boolean topicsReady(List<String> names) {
        try {
            Map<String, TopicDescription> descriptions = get(admin().describeTopics(names).allTopicNames(),
                    "describe topics " + names);
            return PartitionsOnline.ready(admin(), descriptions.values(), timeout); // leaders, and online on them (KAFKA-15591)
        } catch (UnknownTopicOrPartitionException e) {
            return false;
        }
    }

    /** The descriptions of those of the topics that the cluster knows already (none for one not created yet). */
    private Map<String, TopicDescription> describeKnown(Collection<String> names) {
        Map<String, TopicDescription> known = new HashMap<>();
        admin().describeTopics(names).topicNameValues().forEach((name, future) -> {
            try {
                known.put(name, get(future, "describe topic '" + name + "'"));
            } catch (UnknownTopicOrPartitionException e) {
                // not known to the broker that answered yet: asked again next round
            }
        });
        return known;
    }

    private void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new SwitchboardException("Timed out after " + timeout + " waiting for Kafka " + what
                        + "; check the brokers' health or raise kafka.admin-timeout");
            }
            pause();
        }
    }

    static void pause() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }

    private static short replicationFactor(String key, String value) {
        try {
            short factor = Short.parseShort(value.trim());
            if (factor >= 1) {
                return factor;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigurationException("Kafka setting '" + key + "' is '" + value
                + "' but must be a whole number from 1 to the number of brokers, such as 3");
    }

    /** Waits for an Admin result; Kafka's own exceptions (TopicExistsException, ...) are rethrown as they are. */
    <T> T get(KafkaFuture<T> future, String action) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ApiException cause) {
                throw cause;
            }
            throw new SwitchboardException("Kafka could not " + action + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new SwitchboardException("Kafka did not " + action + " within " + timeout
                    + "; check kafka.bootstrap.servers and the brokers' health, or raise kafka.admin-timeout", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while waiting for Kafka to " + action, e);
        }
    }

    /** Describes the cluster within the timeout: UP with the broker count, else DOWN with why. */
    public BrokerHealth health(Duration within) {
        String servers = BrokerConfig.printable("bootstrap.servers",
                config.brokerConfig().get(KafkaClientConfig.PREFIX + "bootstrap.servers"));
        try {
            DescribeClusterResult cluster = admin().describeCluster(
                    new DescribeClusterOptions().timeoutMs((int) Math.min(Integer.MAX_VALUE, within.toMillis())));
            Collection<Node> nodes = cluster.nodes().get(within.toMillis(), TimeUnit.MILLISECONDS);
            String clusterId = cluster.clusterId().get(within.toMillis(), TimeUnit.MILLISECONDS);
            return nodes.isEmpty() ? BrokerHealth.down("cluster " + clusterId + " at " + servers + " has no broker")
                    : BrokerHealth.up(nodes.size() + " broker(s) in cluster " + clusterId + " at " + servers);
        } catch (TimeoutException e) {
            return BrokerHealth.down("no answer from " + servers + " within " + within
                    + "; check kafka.bootstrap.servers and that the brokers run");
        } catch (ExecutionException e) {
            return BrokerHealth.down("describing the cluster at " + servers + " failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return BrokerHealth.down("interrupted while describing the cluster at " + servers);
        } catch (RuntimeException e) {
            return BrokerHealth.down("cannot describe the cluster at " + servers + ": " + e);
        }
    }

    Admin admin() {
        synchronized (lock) {
            if (closed) {
                throw new SwitchboardClosedException("The Kafka adapter '"
                        + config.brokerConfig().instanceName() + "' is closed");
            }
            if (admin == null) {
                admin = Admin.create(config.admin());
                config.register(admin.metrics());
            }
            return admin;
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
                admin = null;
            }
        }
    }
}
