package io.switchboard.bench.driver;

import io.switchboard.Delivery;
import io.switchboard.bench.workload.Workload;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The kafka-clients settings of a run, as the Switchboard adapter sets up its clients: one set for
 * the plain-client driver ({@link KafkaNativeDriver}) and the Spring Kafka peer
 * ({@link SpringKafkaDriver}), so that the two differ only by the code around the clients.
 *
 * <p>Workload properties: names with a dot go to the clients that know them
 * ({@code producer.}/{@code consumer.}/{@code admin.} to one kind only), {@code topic.*} become
 * topic configs, and the adapter's own {@code commit-interval}, {@code poll-timeout} and
 * {@code replication-factor} are honoured.
 */
final class KafkaClientSettings {

    private final Workload workload;
    private final Map<String, Object> common = new HashMap<>();
    private final Map<String, String> topicConfigs = new HashMap<>();
    private final Map<String, String> props;

    KafkaClientSettings(String bootstrap, Workload workload) {
        this.workload = workload;
        this.props = workload.propertiesFor("kafka");
        common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.forEach((k, v) -> {
            if (k.startsWith("topic.")) {
                topicConfigs.put(k.substring("topic.".length()), v);
            }
        });
    }

    /** The admin client's configuration. */
    Map<String, Object> admin() {
        return clientConfig("admin.", AdminClientConfig.configNames());
    }

    private Map<String, Object> clientConfig(String prefix, Set<String> known) {
        Map<String, Object> config = new HashMap<>(common);
        props.forEach((k, v) -> {
            if (known.contains(k)) {
                config.put(k, v);
            }
        });
        props.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                config.put(k.substring(prefix.length()), v);
            }
        });
        return config;
    }

    /**
     * The producer's configuration: {@code acks=1} without retries for at-most-once,
     * {@code acks=all} with the idempotent producer for at-least-once; byte-array serializers.
     */
    Map<String, Object> producer(String clientId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        config.putAll(clientConfig("producer.", ProducerConfig.configNames()));
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        if (workload.delivery() == Delivery.AT_MOST_ONCE) {
            config.putIfAbsent(ProducerConfig.ACKS_CONFIG, "1");
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
            config.put(ProducerConfig.RETRIES_CONFIG, "0");
        } else {
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        }
        return config;
    }

    /**
     * A consumer's configuration: {@code read_committed}, from the earliest offset,
     * {@code max.poll.records = min(prefetch, 500)}, no auto-commit, byte-array deserializers.
     */
    Map<String, Object> consumer(String group) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(Math.min(workload.consumerPrefetch(), 500)));
        config.putAll(clientConfig("consumer.", ConsumerConfig.configNames()));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return config;
    }

    /**
     * Creates the topics in one call and waits until every partition of each has a leader that answers for it, as the
     * adapter's provisioner does before a publisher or subscription is ready. Sending at once hits partitions whose
     * leader is named but not serving them yet: the idempotent producer then gets {@code NOT_LEADER_OR_FOLLOWER} and
     * here retried one partition's batch on {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until {@code delivery.timeout.ms}
     * (120 s; KAFKA-15591, which the adapter's {@code PartitionsOnline} waits out with {@code describeProducers}),
     * holding that partition's messages for the whole run (the 15 s drains and 97 s clean-ups of the native driver in a
     * JVM of its own, bench/README).
     *
     * @throws java.util.concurrent.TimeoutException when the topics are not made, or have no leader, within {@code timeout}
     */
    void createTopics(Admin admin, List<String> topics, int partitions, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        admin.createTopics(topics.stream().map(t -> topic(t, partitions)).toList()).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        while (true) {
            long left = deadline - System.nanoTime();
            Map<String, TopicDescription> described = describe(admin, topics, left);
            List<String> leaderless = described == null ? topics : described.values().stream().filter(d -> d.partitions().size() < partitions
                    || d.partitions().stream().anyMatch(p -> p.leader() == null || p.leader().isEmpty())).map(TopicDescription::name).toList();
            if (described != null && leaderless.isEmpty() && leadersAnswer(admin, described.values(), deadline)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new java.util.concurrent.TimeoutException("Kafka topics " + (leaderless.isEmpty() ? topics : leaderless)
                        + " still had a partition without a leader that answers for it " + timeout + " after they were created");
            }
            Thread.sleep(20);
        }
    }

    /**
     * The topics' descriptions, or null while the broker that answers does not know one of them yet (its metadata
     * follows the controller's: {@code UNKNOWN_TOPIC_OR_PARTITION} right after the topics were made, seen here).
     */
    private static Map<String, TopicDescription> describe(Admin admin, List<String> topics, long leftNanos) throws Exception {
        return nullIfRetriable(admin.describeTopics(topics).allTopicNames(), System.nanoTime() + leftNanos);
    }

    /**
     * Whether each partition's leader answers a {@code ListOffsets} (as a consumer's first position lookup does): the
     * metadata names a leader before that broker serves the partition, and a produce request in between gets
     * {@code NOT_LEADER_OR_FOLLOWER}.
     */
    private static boolean leadersAnswer(Admin admin, Collection<TopicDescription> topics, long deadline) throws Exception {
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        topics.forEach(d -> d.partitions().forEach(p -> partitions.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
        return nullIfRetriable(admin.listOffsets(partitions).all(), deadline) != null;
    }

    /** The admin call's answer, waited for until the deadline; null when it failed with a retriable error. */
    private static <T> T nullIfRetriable(KafkaFuture<T> answer, long deadlineNanos) throws Exception {
        try {
            return answer.get(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return null;
            }
            throw e;
        }
    }

    /** The topic to create, with the workload's {@code topic.*} configs and {@code replication-factor}. */
    NewTopic topic(String topic, int partitions) {
        Optional<Short> replication = Optional.ofNullable(props.get("replication-factor")).map(Short::parseShort);
        return new NewTopic(topic, Optional.of(partitions), replication).configs(topicConfigs);
    }

    /** How long a poll waits for records ({@code poll-timeout}, 100ms). */
    Duration pollTimeout() {
        return BrokerConfig.parseDuration(props.getOrDefault("poll-timeout", "100ms"));
    }

    /** How often offsets are committed ({@code commit-interval}, 100ms; zero: after every record). */
    Duration commitInterval() {
        return BrokerConfig.parseDuration(props.getOrDefault("commit-interval", "100ms"));
    }
}
