package io.switchboard.kafka.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.kafka.internal.consume.GroupConsumers;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Turns a broker instance's properties into kafka-clients configurations.
 *
 * <p>Every {@code kafka.<name>} property passes through to the clients that know {@code <name>}
 * (a property no client knows, such as an interceptor's own setting, goes to all of them);
 * {@code kafka.producer.<name>}, {@code kafka.consumer.<name>} and {@code kafka.admin.<name>} go to
 * one kind of client only and win. Kafka's own names never contain a hyphen, so the adapter's
 * settings are hyphenated: {@code kafka.commit-interval}, {@code kafka.poll-timeout} and so on.
 * Then the delivery guarantee's settings are applied, refusing a property that would weaken it.
 */
public final class KafkaClientConfig {

    public static final String PREFIX = "kafka.";
    private static final String PRODUCER = "producer.";
    private static final String CONSUMER = "consumer.";
    private static final String ADMIN = "admin.";

    /** The client ids of the producers and admin clients registered (a few per instance; kept until it closes). */
    private final Set<String> clientIds = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final BrokerConfig config;

    public KafkaClientConfig(BrokerConfig config) {
        this.config = config;
        config.require(PREFIX + CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "the Kafka brokers to connect to, for example "
                + "'localhost:9092' (kafka.bootstrap.servers)");
    }

    public BrokerConfig brokerConfig() {
        return config;
    }

    /**
     * The name of an adapter thread of this instance: {@code switchboard-kafka[<instance>]-<role>}. The brackets cannot
     * be part of an instance name, so {@link #clientThreads()} tells the instances' threads apart.
     */
    public String threadName(String role) {
        return "switchboard-kafka[" + config.instanceName() + "]-" + role;
    }

    /**
     * This instance's threads: the adapter's ({@link #threadName}) and the network threads of the kafka-clients producers
     * and admin clients it {@link #register registered} ({@code kafka-producer-network-thread | <client id>}). The
     * adapter leaves {@code client.id} to kafka-clients and reads each client's from its metrics. The consumer's
     * heartbeat thread is named after the group, which two instances may share, and is left out (it sleeps between
     * heartbeats); the consumer's own work runs on the adapter's poll thread.
     */
    public java.util.function.Predicate<String> clientThreads() {
        String own = "switchboard-kafka[" + config.instanceName() + "]-";
        return name -> {
            if (name.startsWith(own)) {
                return true;
            }
            int bar = name.indexOf(" | ");
            return bar > 0 && name.startsWith("kafka-") && clientIds.contains(name.substring(bar + 3));
        };
    }

    /**
     * Counts a kafka-clients producer's or admin client's network thread as this instance's ({@link #clientThreads()}).
     *
     * @param metrics the client's {@code metrics()}, whose names carry its {@code client-id}
     */
    public void register(Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> metrics) {
        for (org.apache.kafka.common.MetricName name : metrics.keySet()) {
            String id = name.tags().get("client-id");
            if (id != null) {
                clientIds.add(id);
                return;
            }
        }
    }

    /** An adapter setting ({@code kafka.<hyphenated-name>}) as a duration. */
    public Duration duration(String setting, Duration defaultValue, Map<String, String> overrides) {
        return config.with(overrides).getDuration(PREFIX + setting, defaultValue);
    }

    /**
     * The Admin client's configuration. Its requests time out after 10 s unless
     * {@code kafka.request.timeout.ms} (or {@code kafka.admin.request.timeout.ms}) says otherwise
     * (Kafka's default is 30 s): a request sent to a broker that stopped answering (frozen, or cut
     * off with its connection open) is then retried on another broker within {@code kafka.admin-timeout}.
     */
    public Map<String, Object> admin() {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.putAll(clientConfig(Map.of(), AdminClientConfig.configNames(), ADMIN));
        return props;
    }

    public Map<String, Object> producer(Delivery delivery, String destination, Map<String, String> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        props.putAll(clientConfig(overrides, ProducerConfig.configNames(), PRODUCER));
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        Object transactionalId = props.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        if (transactionalId != null && (delivery != Delivery.EXACTLY_ONCE || !overrides.containsKey(PREFIX + "transactional.id"))) {
            throw invalid("transactional.id", transactionalId, "absent here: each EXACTLY_ONCE publisher gets a unique "
                    + "transactional.id of its own (prefix it with kafka.transactional-id-prefix); set one only as a "
                    + "property of a single EXACTLY_ONCE publisher");
        }
        switch (delivery) {
            case AT_MOST_ONCE -> {
                props.putIfAbsent(ProducerConfig.ACKS_CONFIG, "1");
                props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
                Object retries = props.getOrDefault(ProducerConfig.RETRIES_CONFIG, "0");
                if (!"0".equals(retries.toString().trim())) {
                    throw invalid("retries", retries, "0 for an AT_MOST_ONCE publisher (a retry may publish twice); "
                            + "remove it or publish with Delivery.AT_LEAST_ONCE");
                }
                props.put(ProducerConfig.RETRIES_CONFIG, "0");
            }
            case AT_LEAST_ONCE, EXACTLY_ONCE -> {
                requireAcksAll(props, delivery);
                props.put(ProducerConfig.ACKS_CONFIG, "all");
                props.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                if (delivery == Delivery.EXACTLY_ONCE) {
                    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                    props.putIfAbsent(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                            config.with(overrides).get(PREFIX + "transactional-id-prefix", "switchboard") + "-"
                                    + destination + "-" + UUID.randomUUID());
                }
            }
            default -> throw new IllegalArgumentException("unknown delivery " + delivery);
        }
        return props;
    }

    /**
     * The settings that shape latency and throughput, as an at-least-once publisher and subscription get them: what the
     * application set, else kafka-clients' own default.
     */
    public java.util.List<io.switchboard.spi.PerformanceSetting> performanceSettings() {
        Map<String, Object> producer = producer(Delivery.AT_LEAST_ONCE, "destination", Map.of());
        Map<String, Object> consumer = consumer("group", Delivery.AT_LEAST_ONCE, false, 500, Map.of());
        Map<String, Object> producerDefaults = ProducerConfig.configDef().defaultValues();
        Map<String, Object> consumerDefaults = ConsumerConfig.configDef().defaultValues();
        java.util.function.BiFunction<Map<String, Object>, String, String> p = (given, name) ->
                String.valueOf(given.getOrDefault(name, (given == producer ? producerDefaults : consumerDefaults).get(name)));
        String acks = p.apply(producer, ProducerConfig.ACKS_CONFIG);
        return java.util.List.of(
                io.switchboard.spi.PerformanceSetting.batchingWait(ProducerConfig.LINGER_MS_CONFIG,
                        Double.parseDouble(p.apply(producer, ProducerConfig.LINGER_MS_CONFIG)), PREFIX + ProducerConfig.LINGER_MS_CONFIG),
                io.switchboard.spi.PerformanceSetting.other(ProducerConfig.BATCH_SIZE_CONFIG,
                        p.apply(producer, ProducerConfig.BATCH_SIZE_CONFIG), PREFIX + ProducerConfig.BATCH_SIZE_CONFIG),
                io.switchboard.spi.PerformanceSetting.confirmWait(ProducerConfig.ACKS_CONFIG, acks, !"0".equals(acks),
                        PREFIX + ProducerConfig.ACKS_CONFIG),
                io.switchboard.spi.PerformanceSetting.other(ProducerConfig.COMPRESSION_TYPE_CONFIG,
                        p.apply(producer, ProducerConfig.COMPRESSION_TYPE_CONFIG), PREFIX + ProducerConfig.COMPRESSION_TYPE_CONFIG),
                io.switchboard.spi.PerformanceSetting.other(ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        p.apply(consumer, ConsumerConfig.MAX_POLL_RECORDS_CONFIG), PREFIX + ConsumerConfig.MAX_POLL_RECORDS_CONFIG),
                io.switchboard.spi.PerformanceSetting.other(ConsumerConfig.FETCH_MIN_BYTES_CONFIG,
                        p.apply(consumer, ConsumerConfig.FETCH_MIN_BYTES_CONFIG), PREFIX + ConsumerConfig.FETCH_MIN_BYTES_CONFIG),
                io.switchboard.spi.PerformanceSetting.other(GroupConsumers.LINGER, duration(GroupConsumers.LINGER,
                        GroupConsumers.DEFAULT_LINGER, Map.of()).toMillis() + "ms after polls of " + config.getInt(PREFIX
                        + GroupConsumers.LINGER_RECORDS, GroupConsumers.DEFAULT_LINGER_RECORDS) + "+ records",
                        PREFIX + GroupConsumers.LINGER));
    }

    public Map<String, Object> consumer(String group, Delivery delivery, boolean broadcast, int maxInFlight,
            Map<String, String> overrides) {
        return consumer(group, delivery, broadcast, maxInFlight, overrides, null);
    }

    /**
     * A consumer's client settings. Where the group has no committed offset it starts by {@code auto.offset.reset}:
     * {@code earliest} unless {@code kafka.auto.offset.reset} says otherwise, {@code latest} for a broadcast
     * subscriber, and what the subscription's start position says when it has one (offsets and times are sought
     * after the assignment, from {@code earliest}).
     */
    public Map<String, Object> consumer(String group, Delivery delivery, boolean broadcast, int maxInFlight,
            Map<String, String> overrides, io.switchboard.StartPosition start) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(Math.min(maxInFlight, 500)));
        props.putAll(clientConfig(overrides, ConsumerConfig.configNames(), CONSUMER));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        if (broadcast) {
            // a broadcast subscriber receives what is published after it became ready
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        }
        if (start != null) {
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    start.kind() == io.switchboard.StartPosition.Kind.LATEST ? "latest" : "earliest");
        }
        Object isolation = props.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
        if (delivery == Delivery.EXACTLY_ONCE && !"read_committed".equals(isolation.toString().trim().toLowerCase(Locale.ROOT))) {
            throw invalid("isolation.level", isolation, "read_committed for an EXACTLY_ONCE subscription (it would "
                    + "see records of aborted transactions); remove the property");
        }
        return props;
    }

    private void requireAcksAll(Map<String, Object> props, Delivery delivery) {
        Object acks = props.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !Set.of("all", "-1").contains(acks.toString().trim().toLowerCase(Locale.ROOT))) {
            throw invalid("acks", acks, "'all' for a " + delivery + " publisher (the record must survive a broker "
                    + "failure); remove it, or publish with Delivery.AT_MOST_ONCE");
        }
    }

    /** The pass-through properties one kind of client gets, overrides applied. */
    private Map<String, Object> clientConfig(Map<String, String> overrides, Set<String> known, String clientPrefix) {
        Map<String, String> all = config.with(overrides).withPrefix(PREFIX);
        Map<String, Object> props = new HashMap<>();
        Map<String, String> specific = new HashMap<>();
        all.forEach((name, value) -> {
            if (name.startsWith(clientPrefix)) {
                specific.put(name.substring(clientPrefix.length()), value);
            } else if (isClientProperty(name) && (known.contains(name) || !knownToAnyClient(name))) {
                props.put(name, value);
            }
        });
        props.putAll(specific);
        return props;
    }

    /** Kafka property names have no hyphen; the adapter's own settings and other clients' prefixes are not for this client. */
    private static boolean isClientProperty(String name) {
        return name.indexOf('-') < 0 && !name.startsWith(PRODUCER) && !name.startsWith(CONSUMER) && !name.startsWith(ADMIN);
    }

    private ConfigurationException invalid(String name, Object value, String expected) {
        return config.invalid(PREFIX + name, value.toString(), expected);
    }

    private static boolean knownToAnyClient(String name) {
        return ProducerConfig.configNames().contains(name) || ConsumerConfig.configNames().contains(name)
                || AdminClientConfig.configNames().contains(name);
    }
}
