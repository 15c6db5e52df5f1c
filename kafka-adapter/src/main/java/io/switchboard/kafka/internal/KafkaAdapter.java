package io.switchboard.kafka.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.kafka.internal.consume.GroupConsumers;
import io.switchboard.kafka.internal.control.KafkaControlSupport;
import io.switchboard.kafka.internal.delay.DelayTopics;
import io.switchboard.kafka.internal.delay.Forwarders;
import io.switchboard.kafka.internal.provision.KafkaProvisioner;
import io.switchboard.kafka.internal.publish.KafkaPublisher;
import io.switchboard.kafka.internal.publish.ProducerPool;
import io.switchboard.kafka.internal.publish.ProducerRetries;
import io.switchboard.kafka.internal.tx.PipelineTransaction;
import io.switchboard.kafka.internal.tx.TransactionalKafkaPublisher;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.DestinationNameRule;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka adapter for one broker instance: publishers share producers by settings, the subscriptions of one group
 * share a {@code KafkaConsumer} and its poll thread by settings ({@link GroupConsumers}), a subscribed destination with delay topics has
 * a delay forwarder ({@link Forwarders}), and one Admin client provisions topics and reads lag. Created by {@link io.switchboard.kafka.KafkaAdapterFactory}, which documents the
 * properties.
 */
public final class KafkaAdapter implements BrokerAdapter {

    /** The adapter id. */
    public static final String ID = "kafka";

    /** Kafka's rule for topic names. */
    public static final DestinationNameRule TOPIC_NAMES = DestinationNameRule.of("[a-zA-Z0-9._-]+", 249,
            "Kafka's rule for topic names: letters, digits, '.', '_' and '-', at most 249 characters, not '.' or '..'",
            Set.of(".", "..", "__consumer_offsets", "__transaction_state", "__share_group_state"), Set.of());

    /** Room left in max.request.size for the record batch and record framing around payload and headers. */
    private static final int FRAMING_BYTES = 16 * 1024;

    private static final Logger log = LoggerFactory.getLogger(KafkaAdapter.class);

    private final KafkaClientConfig config;
    private final Capabilities capabilities;
    private final KafkaProvisioner provisioner;
    private final ProducerPool producers = new ProducerPool(this::made);
    /** Reports the producers' own retries while something listens to the client events, else null. */
    private final ProducerRetries producerRetries;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private final Duration closeTimeout;
    /** The delay topics publishers route delayed records into, and the forwarders that move them on. */
    private final DelayTopics delays;
    private final Forwarders forwarders;
    private final GroupConsumers consumers;
    /** The fleet control plane's primitives, made on first use; closed with this adapter. */
    private KafkaControlSupport control;
    private boolean closed;

    /**
     * Creates the adapter; no connection is opened until something is created.
     *
     * @param brokerConfig the broker instance's properties
     * @throws ConfigurationException when {@code kafka.bootstrap.servers} is missing or a setting is malformed
     */
    public KafkaAdapter(BrokerConfig brokerConfig) {
        this.config = new KafkaClientConfig(brokerConfig);
        this.closeTimeout = config.duration("close-timeout", Duration.ofSeconds(30), Map.of());
        this.provisioner = new KafkaProvisioner(config);
        this.consumers = new GroupConsumers(config, provisioner);
        this.capabilities = Capabilities.builder(ID)
                .nativeExactlyOnce(true)
                .orderingPerKey(true)
                .broadcast(true)
                .delayedDelivery(true) // delay topics in tiers, moved on by each subscribing application's forwarder
                .filtering(true) // tag filter applied by the consumer before decoding
                .publishTimestamp(true) // CreateTime, stamped by the producer when the record has no timestamp
                .replay(true)
                .startPositions(java.util.EnumSet.allOf(io.switchboard.StartPosition.Kind.class),
                        java.util.EnumSet.allOf(io.switchboard.StartPosition.Kind.class), "")
                .maxMessageSize(maxMessageSize(brokerConfig))
                .destinationNames(TOPIC_NAMES)
                .build();
        this.forwarders = new Forwarders(config, closeTimeout, provisioner::topicNames);
        this.delays = new DelayTopics(provisioner,
                () -> brokerConfig.getInt("switchboard.partitions", capabilities.defaultPartitions()), forwarders::created);
        forwarders.topics(delays);
        this.producerRetries = ProducerRetries.start(config.threadName("retries"), brokerConfig.events(), producers::open);
    }

    private static int maxMessageSize(BrokerConfig brokerConfig) {
        String explicit = KafkaClientConfig.PREFIX + "max-message-size";
        if (brokerConfig.get(explicit) != null) {
            return brokerConfig.getInt(explicit, 0);
        }
        int requestSize = brokerConfig.getInt(KafkaClientConfig.PREFIX + ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1024 * 1024);
        if (requestSize <= 2 * FRAMING_BYTES) {
            throw new ConfigurationException("Kafka property 'kafka.max.request.size' is " + requestSize
                    + " but must be above " + 2 * FRAMING_BYTES + " bytes, such as 1048576");
        }
        return requestSize - FRAMING_BYTES;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public List<io.switchboard.spi.PerformanceSetting> performanceSettings() {
        return config.performanceSettings();
    }

    /** The records per produce request of the adapter's producers, as kafka-clients averages them, read once a second. */
    @Override
    public java.util.OptionalDouble recordsPerRequest() {
        double v = producerRetries == null ? Double.NaN : producerRetries.recordsPerRequest();
        return Double.isNaN(v) ? java.util.OptionalDouble.empty() : java.util.OptionalDouble.of(v);
    }

    private void made(org.apache.kafka.clients.producer.Producer<byte[], byte[]> producer) {
        config.register(producer.metrics());
    }

    @Override
    public io.switchboard.spi.ClientThreads clientThreads() {
        return io.switchboard.spi.ClientThreads.named(config.clientThreads());
    }

    @Override
    public RawPublisher createPublisher(PublisherSpec spec) {
        Map<String, Object> clientConfig = config.producer(spec.delivery(), spec.destination(), spec.properties());
        Duration timeout = config.duration("close-timeout", closeTimeout, spec.properties());
        KeyFormat keys = KeyFormat.of(spec.properties(), config.brokerConfig());
        RawPublisher publisher;
        try {
            if (Boolean.parseBoolean(spec.properties().get(PipelineTransaction.OUTPUT_PROPERTY))) {
                publisher = new PipelineTransaction.OutputPublisher(config.brokerConfig(), spec.destination(), delays, keys);
            } else if (spec.delivery() == Delivery.EXACTLY_ONCE) {
                BrokerConfig settings = config.brokerConfig().with(spec.properties());
                publisher = track(new TransactionalKafkaPublisher(clientConfig, spec.destination(),
                        settings.getInt(KafkaClientConfig.PREFIX + "transaction-max-records", 1, 1000),
                        settings.getInt(KafkaClientConfig.PREFIX + "transaction-queue-capacity", 1, 10_000),
                        timeout, open::remove, delays, keys));
            } else {
                publisher = new KafkaPublisher(producers.acquire(clientConfig), spec.destination(), timeout, open::remove, delays,
                        keys);
                track(publisher);
            }
        } catch (KafkaException e) {
            throw new ConfigurationException("Broker instance '" + config.brokerConfig().instanceName() + "' (kafka): "
                    + "cannot create a producer for topic '" + spec.destination() + "': " + e.getMessage()
                    + "; check the kafka.* properties", e);
        }
        return publisher;
    }

    @Override
    public RawConsumer createConsumer(ConsumerSpec spec) {
        AutoCloseable forwarder = forwarders.acquire(spec);
        try {
            return track(consumers.create(spec, closed -> {
                open.remove(closed);
                closeQuietly(forwarder);
            }));
        } catch (RuntimeException e) {
            closeQuietly(forwarder);
            throw e;
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            log.warn("Closing {} failed", closeable, e);
        }
    }

    @Override
    public Provisioner provisioner() {
        return provisioner;
    }

    @Override
    public BrokerHealth health(Duration timeout) {
        return provisioner.health(timeout);
    }

    /** Control logs on compacted one-partition topics and leadership through a consumer group, on clients of their own. */
    @Override
    public synchronized Optional<ControlSupport> control() {
        if (closed) {
            throw new SwitchboardClosedException("The Kafka adapter '" + config.brokerConfig().instanceName() + "' is closed");
        }
        if (control == null) {
            control = new KafkaControlSupport(config, provisioner);
        }
        return Optional.of(control);
    }

    /** Per partition: end offset minus the group's committed offset. */
    public Map<Integer, Long> lag(String topic, String group) {
        return provisioner.lag(topic, group);
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    @Override
    public void close() {
        KafkaControlSupport controlSupport;
        synchronized (this) {
            closed = true;
            controlSupport = control;
        }
        if (controlSupport != null) {
            controlSupport.close();
        }
        List<AutoCloseable> left = new ArrayList<>(open);
        open.clear();
        left.forEach(KafkaAdapter::closeQuietly);
        consumers.close();
        forwarders.close();
        if (producerRetries != null) {
            producerRetries.close();
        }
        producers.closeAll(closeTimeout);
        provisioner.close();
    }

    @Override
    public String toString() {
        return "KafkaAdapter[" + config.brokerConfig().instanceName() + "]";
    }
}
