package io.switchboard.bench.driver;

import io.switchboard.bench.workload.Workload;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Kafka through plain kafka-clients, set up as the Switchboard adapter sets up its clients so that
 * the two differ only by the SDK: one producer shared by all producers of the run, {@code acks=1}
 * without retries for at-most-once and {@code acks=all} with the idempotent producer for
 * at-least-once; one consumer per poll thread, {@code read_committed}, offsets committed
 * asynchronously every {@code commit-interval} (100ms; 0 = after every record). The send time
 * travels in the payload's first 8 bytes, as through the SDK. Workload properties as
 * {@link KafkaClientSettings} reads them.
 */
final class KafkaNativeDriver extends NativeDriver {

    static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaClientSettings settings;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;

    KafkaNativeDriver(String bootstrap, Workload workload, String runId, boolean envelope) {
        super("kafka", envelope);
        this.settings = new KafkaClientSettings(bootstrap, workload);
        this.admin = Admin.create(settings.admin());
        this.producer = new KafkaProducer<>(settings.producer("bench-native-" + runId));
    }

    @Override
    public void createTopic(String topic, int partitions) throws Exception {
        settings.createTopics(admin, List.of(topic), partitions, ADMIN_TIMEOUT);
    }

    @Override
    public void createTopics(List<String> topics, int partitions) throws Exception {
        settings.createTopics(admin, topics, partitions, ADMIN_TIMEOUT);
    }

    /** The default envelope's constant headers, built once as the adapter caches them. */
    private static final Header SPEC_VERSION = constant("ce_specversion", NativeEnvelope.SPEC_VERSION);
    private static final Header SOURCE = constant("ce_source", NativeEnvelope.SOURCE);
    private static final Header TYPE = constant("ce_type", NativeEnvelope.TYPE);

    private static Header constant(String name, String value) {
        return new RecordHeader(name, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The headers the Kafka adapter writes for a message with the default envelope and no explicit
     * timestamp: no {@code ce_time} (the record's CreateTime), no {@code ce_subject} (the record key),
     * no {@code content-type} (bytes: the lean default leaves {@code application/octet-stream} out).
     */
    static List<Header> envelopeHeaders(NativeEnvelope ce) {
        List<Header> headers = new java.util.ArrayList<>(4);
        headers.add(SPEC_VERSION);
        headers.add(new RecordHeader(NativeEnvelope.ID_HEADER, ce.nextId().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        headers.add(SOURCE);
        headers.add(TYPE);
        return headers;
    }

    /** The length of a record's envelope id, decoded as the SDK decodes it (0 without one): what native-ce consumers read. */
    static int idLength(org.apache.kafka.common.header.Headers headers) {
        Header id = headers.lastHeader(NativeEnvelope.ID_HEADER);
        return id == null ? 0 : new String(id.value(), java.nio.charset.StandardCharsets.UTF_8).length();
    }

    /**
     * The record of one send: the key as the record key, the payload (the send time in its first 8
     * bytes; no header of the bench's own), and the envelope's headers when {@code ce} is not null.
     */
    static ProducerRecord<byte[], byte[]> record(String topic, String key, byte[] payload, NativeEnvelope ce) {
        byte[] keyBytes = key == null ? null : key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<Header> headers = ce == null ? null : envelopeHeaders(ce);
        return new ProducerRecord<>(topic, null, keyBytes, payload, headers);
    }

    @Override
    public BenchProducer createProducer(String topic) {
        NativeEnvelope ce = envelope ? new NativeEnvelope() : null;
        return new BenchProducer() {
            @Override
            public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
                try {
                    producer.send(record(topic, key, payload, ce), (metadata, error) -> callback.done(error));
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
        PollLoop loop = new PollLoop(new KafkaConsumer<>(settings.consumer(subscription)), topic, listener,
                settings.pollTimeout(), settings.commitInterval().toNanos(), envelope);
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
                            idLength += idLength(record.headers());
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
