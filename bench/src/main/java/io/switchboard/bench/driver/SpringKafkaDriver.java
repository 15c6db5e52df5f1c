package io.switchboard.bench.driver;

import io.switchboard.bench.workload.Workload;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;

/**
 * The Spring Kafka peer (modes {@link #SPRING} and {@link #SPRING_ENVELOPE}, {@code --spring-peers}):
 * what a Spring user would pick instead of Switchboard, with the kafka-clients settings of the
 * native driver ({@link KafkaClientSettings}) so that SDK/spring compares the code around the same
 * clients. Publishing through one {@link KafkaTemplate} over one {@link DefaultKafkaProducerFactory}
 * (one producer shared by the run's publishers, as the adapter's pool and the native driver do):
 * {@code acks=all} with the idempotent producer for at-least-once, {@code acks=1} without retries
 * for at-most-once; a send is acknowledged when the template's future completes. Consuming through
 * one {@link ConcurrentMessageListenerContainer} per bench consumer (concurrency 1: one poll
 * thread, as the native driver and the adapter) with a record {@link MessageListener}: the
 * container commits offsets after the listener returned (at least once), asynchronously every
 * {@code commit-interval} (ack mode {@code TIME}; {@code RECORD} when the interval is 0), as the
 * native driver and the adapter commit theirs.
 *
 * <p>Mode {@link #SPRING} sends what a Spring application sends by default (the payload and the key,
 * no header); {@link #SPRING_ENVELOPE} carries the same headers as mode {@link #NATIVE_ENVELOPE}
 * (the SDK's lean default envelope) and its listener reads the id as the SDK does. The send time
 * travels in the payload's first 8 bytes, as on every side. The template and the container are
 * built by hand, without an application context: no Micrometer timers or observations of Spring's
 * own (the SDK driver runs with its meters on).
 */
final class SpringKafkaDriver extends NativeDriver {

    private static final Logger log = LoggerFactory.getLogger(SpringKafkaDriver.class);

    private final KafkaClientSettings settings;
    private final Admin admin;
    private final DefaultKafkaProducerFactory<byte[], byte[]> producerFactory;
    private final KafkaTemplate<byte[], byte[]> template;
    private final String runId;

    SpringKafkaDriver(String bootstrap, Workload workload, String runId, boolean envelope) {
        super("kafka", envelope, envelope ? SPRING_ENVELOPE : SPRING);
        this.runId = runId;
        this.settings = new KafkaClientSettings(bootstrap, workload);
        this.admin = Admin.create(settings.admin());
        this.producerFactory = new DefaultKafkaProducerFactory<>(settings.producer("bench-spring-" + runId));
        this.template = new KafkaTemplate<>(producerFactory);
        template.setBeanName("benchKafkaTemplate");
    }

    @Override
    public void createTopic(String topic, int partitions) throws Exception {
        settings.createTopics(admin, List.of(topic), partitions, KafkaNativeDriver.ADMIN_TIMEOUT);
    }

    @Override
    public void createTopics(List<String> topics, int partitions) throws Exception {
        // as Spring Kafka's KafkaAdmin makes an application's NewTopic beans: one call at start (and, unlike KafkaAdmin,
        // waiting for the partitions' leaders, so that the measured runs do not include a new topic's first moments)
        settings.createTopics(admin, topics, partitions, KafkaNativeDriver.ADMIN_TIMEOUT);
    }

    @Override
    public BenchProducer createProducer(String topic) {
        NativeEnvelope ce = envelope ? new NativeEnvelope() : null;
        return new BenchProducer() {
            @Override
            public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
                try {
                    template.send(KafkaNativeDriver.record(topic, key, payload, ce))
                            .whenComplete((result, error) -> callback.done(error));
                } catch (RuntimeException e) {
                    callback.done(e);
                }
            }

            @Override
            public void close() {
                template.flush();
            }
        };
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception {
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setGroupId(subscription);
        properties.setClientId("bench-spring-" + runId + "-" + index);
        properties.setPollTimeout(settings.pollTimeout().toMillis());
        commitAfterHandler(properties, settings.commitInterval());
        CompletableFuture<Void> ready = new CompletableFuture<>();
        properties.setConsumerRebalanceListener(new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                ready.complete(null);
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // the container commits what was acknowledged
            }
        });
        IdReadingReceiver<ConsumerRecord<byte[], byte[]>> receiver =
                new IdReadingReceiver<>(listener, envelope ? r -> KafkaNativeDriver.idLength(r.headers()) : null);
        properties.setMessageListener((MessageListener<byte[], byte[]>) record -> receiver.received(record, record.value()));
        ConcurrentMessageListenerContainer<byte[], byte[]> container =
                new ConcurrentMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(settings.consumer(subscription)), properties);
        container.setConcurrency(1);
        container.setBeanName("bench-spring-" + subscription + "-" + index);
        container.start();
        try {
            ready.get(KafkaNativeDriver.ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            container.stop();
            throw e;
        }
        return container::stop;
    }

    /**
     * A container's commits as the native driver's: after the listener returned, asynchronously every
     * {@code commitInterval} (ack mode {@code TIME}), after every record ({@code RECORD}) at 0.
     */
    static void commitAfterHandler(ContainerProperties properties, Duration commitInterval) {
        if (commitInterval.isZero()) {
            properties.setAckMode(ContainerProperties.AckMode.RECORD);
        } else {
            properties.setAckMode(ContainerProperties.AckMode.TIME);
            properties.setAckTime(commitInterval.toMillis());
        }
        properties.setSyncCommits(false);
    }

    @Override
    public void deleteTopic(String topic) throws Exception {
        admin.deleteTopics(List.of(topic)).all().get(KafkaNativeDriver.ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        try {
            template.destroy();
            producerFactory.destroy();
        } catch (RuntimeException e) {
            log.debug("Closing the Spring Kafka producer failed", e);
        }
        admin.close(Duration.ofSeconds(10));
    }
}
