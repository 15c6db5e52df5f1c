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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka through plain kafka-clients, set up as the Switchboard adapter sets up its clients so that
 * the two differ only by the SDK: one producer shared by all producers of the run, {@code acks=1}
 * without retries for at-most-once and {@code acks=all} with the idempotent producer for
 * at-least-once; one consumer per poll thread, {@code read_committed}, offsets committed
 * asynchronously every {@code commit-interval} (100ms; 0 = after every record). The send time
 * travels in the payload's first 8 bytes, as through the SDK.
 *
 * <p>Workload properties: names with a dot go to the clients that know them
 * ({@code producer.}/{@code consumer.}/{@code admin.} to one kind only), {@code topic.*} become
 * topic configs, and the adapter's own {@code commit-interval}, {@code poll-timeout} and
 * {@code replication-factor} are honoured.
 */
final class KafkaNativeDriver extends NativeDriver {

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

    private final Workload workload;
    private final Map<String, Object> common = new HashMap<>();
    private final Map<String, String> topicConfigs = new HashMap<>();
    private final Map<String, String> props;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;

    KafkaNativeDriver(String bootstrap, Workload workload, String runId, boolean envelope) {
        super("kafka", envelope);
        this.workload = workload;
        this.props = workload.propertiesFor("kafka");
        common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.forEach((k, v) -> {
            if (k.startsWith("topic.")) {
                topicConfigs.put(k.substring("topic.".length()), v);
            }
        });
        this.admin = Admin.create(clientConfig("admin.", AdminClientConfig.configNames()));
        this.producer = new KafkaProducer<>(producerConfig(runId));
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

    private Map<String, Object> producerConfig(String runId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        config.putAll(clientConfig("producer.", ProducerConfig.configNames()));
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-native-" + runId);
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


    @Override
    public void createTopic(String topic, int partitions) throws Exception {
        Optional<Short> replication = Optional.ofNullable(props.get("replication-factor")).map(Short::parseShort);
        NewTopic newTopic = new NewTopic(topic, Optional.of(partitions), replication).configs(topicConfigs);
        admin.createTopics(List.of(newTopic)).all().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The default envelope's constant headers, built once as the adapter caches them. */
    private static final Header SPEC_VERSION = constant("ce_specversion", NativeEnvelope.SPEC_VERSION);
    private static final Header SOURCE = constant("ce_source", NativeEnvelope.SOURCE);
    private static final Header TYPE = constant("ce_type", NativeEnvelope.TYPE);
    private static final Header CONTENT_TYPE = constant("content-type", NativeEnvelope.CONTENT_TYPE);

    private static Header constant(String name, String value) {
        return new RecordHeader(name, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The headers the Kafka adapter writes for a message with the default envelope and no explicit
     * timestamp: no {@code ce_time} (the record's CreateTime), no {@code ce_subject} (the record key).
     */
    static List<Header> envelopeHeaders(NativeEnvelope ce) {
        List<Header> headers = new java.util.ArrayList<>(5);
        headers.add(SPEC_VERSION);
        headers.add(new RecordHeader(NativeEnvelope.ID_HEADER, ce.nextId().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        headers.add(SOURCE);
        headers.add(TYPE);
        headers.add(CONTENT_TYPE);
        return headers;
    }

    @Override
    public BenchProducer createProducer(String topic) {
        NativeEnvelope ce = envelope ? new NativeEnvelope() : null;
        return new BenchProducer() {
            @Override
            public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
                byte[] keyBytes = key == null ? null : key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                // the send time is in the payload; native carries no header of its own
                List<Header> headers = ce == null ? null : envelopeHeaders(ce);
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, keyBytes, payload, headers);
                try {
                    producer.send(record, (metadata, error) -> callback.done(error));
                } catch (RuntimeException e) {
                    callback.done(e);
                }
            }

            @Override
            public void close() {
                producer.flush();
            }
        };
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(Math.min(workload.consumerPrefetch(), 500)));
        config.putAll(clientConfig("consumer.", ConsumerConfig.configNames()));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, subscription);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        PollLoop loop = new PollLoop(new KafkaConsumer<>(config), topic, listener,
                BrokerConfig.parseDuration(props.getOrDefault("poll-timeout", "100ms")),
                BrokerConfig.parseDuration(props.getOrDefault("commit-interval", "100ms")).toNanos(), envelope);
        Thread thread = new Thread(loop, "bench-kafka-consumer-" + subscription + "-" + index);
        thread.setDaemon(true);
        thread.start();
        loop.ready.get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        return () -> {
            loop.running = false;
            loop.consumer.wakeup();
            thread.join(TimeUnit.SECONDS.toMillis(30));
        };
    }

    @Override
    public void deleteTopic(String topic) throws Exception {
        admin.deleteTopics(List.of(topic)).all().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
        admin.close(Duration.ofSeconds(10));
    }

    /** One consumer on its own poll thread. */
    private static final class PollLoop implements Runnable, ConsumerRebalanceListener {
        final KafkaConsumer<byte[], byte[]> consumer;
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        private final String topic;
        private final ReceiveListener listener;
        private final Duration pollTimeout;
        private final long commitIntervalNanos;
        /** Envelope runs read the id, as the SDK does (the sum keeps the JIT from dropping the decoding). */
        private final boolean readId;
        long idLength;
        volatile boolean running = true;

        PollLoop(KafkaConsumer<byte[], byte[]> consumer, String topic, ReceiveListener listener, Duration pollTimeout,
                long commitIntervalNanos, boolean readId) {
            this.readId = readId;
            this.consumer = consumer;
            this.topic = topic;
            this.listener = listener;
            this.pollTimeout = pollTimeout;
            this.commitIntervalNanos = commitIntervalNanos;
        }

        @Override
        public void run() {
            try (consumer) {
                consumer.subscribe(List.of(topic), this);
                long lastCommit = System.nanoTime();
                while (running) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(pollTimeout)) {
                        if (readId) {
                            Header id = record.headers().lastHeader(NativeEnvelope.ID_HEADER);
                            idLength += id == null ? 0 : new String(id.value(), java.nio.charset.StandardCharsets.UTF_8).length();
                        }
                        listener.received(record.value());
                        if (commitIntervalNanos == 0) {
                            consumer.commitAsync(Map.of(new TopicPartition(record.topic(), record.partition()),
                                    new OffsetAndMetadata(record.offset() + 1)), null);
                        }
                    }
                    if (commitIntervalNanos > 0 && System.nanoTime() - lastCommit >= commitIntervalNanos) {
                        consumer.commitAsync();
                        lastCommit = System.nanoTime();
                    }
                }
                consumer.commitSync(Duration.ofSeconds(10));
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                ready.completeExceptionally(e);
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            ready.complete(null);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // offsets are committed on the interval; nothing to do
        }
    }
}
