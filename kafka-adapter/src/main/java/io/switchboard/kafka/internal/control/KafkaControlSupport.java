package io.switchboard.kafka.internal.control;

import io.switchboard.Delivery;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.kafka.internal.provision.KafkaProvisioner;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlSupportBase;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Leadership;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The fleet control plane's primitives on Kafka: a {@link KafkaControlLog} (a compacted topic of
 * one partition, read without a consumer group) per log, and a {@link KafkaLeadership} (a consumer
 * group on a one-partition topic: whoever is assigned the partition leads) per campaign. Topics
 * are created through the adapter's provisioner, with the adapter's default replication factor;
 * the clients take the adapter's {@code kafka.*} properties (bootstrap servers, security), with
 * timeouts of their own so that an unreachable broker is noticed within seconds.
 */
public final class KafkaControlSupport extends ControlSupportBase {

    /** How often a follower and a leader check that the broker answers. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);
    /** How long a probe waits for the broker's answer. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    static final Duration RETRY = Duration.ofSeconds(1);

    private final KafkaClientConfig config;
    private final KafkaProvisioner provisioner;
    private KafkaProducer<byte[], byte[]> producer;

    public KafkaControlSupport(KafkaClientConfig config, KafkaProvisioner provisioner) {
        this.config = config;
        this.provisioner = provisioner;
    }

    @Override
    protected ControlLog newLog(String name) {
        return new KafkaControlLog(this, name);
    }

    @Override
    protected Leadership newLeadership(String name, Leadership.Listener listener) {
        return new KafkaLeadership(this, name, listener);
    }

    @Override
    protected SwitchboardClosedException closedError(String what) {
        return new SwitchboardClosedException("The Kafka adapter '" + instance() + "' is closed: cannot open " + what);
    }

    String instance() {
        return config.brokerConfig().instanceName();
    }

    String threadName(String role) {
        return config.threadName(role);
    }

    String servers() {
        return String.valueOf(config.brokerConfig().get(KafkaClientConfig.PREFIX + "bootstrap.servers"));
    }

    /**
     * Creates topic {@code name} with one partition unless it exists; throws while the broker cannot
     * be reached. A log's topic is compacted, with segments rolled hourly so that compaction can
     * drop superseded records.
     */
    void ensureTopic(String name, boolean compacted) {
        Map<String, String> settings = compacted ? Map.of("cleanup.policy", "compact", "segment.ms", "3600000") : Map.of();
        provisioner.ensureDestination(new DestinationSpec(name, 1, settings));
    }

    /** The producer every log of this support appends with (idempotent, acks=all), made on first use. */
    synchronized KafkaProducer<byte[], byte[]> producer() {
        if (isClosed()) {
            throw new SwitchboardClosedException("The Kafka adapter '" + instance() + "' is closed");
        }
        if (producer == null) {
            Map<String, Object> props = config.producer(Delivery.AT_LEAST_ONCE, "control", Map.of());
            props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
            props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
            producer = new KafkaProducer<>(props);
        }
        return producer;
    }

    /** A consumer configuration for a follower (no group, {@code group} null) or a campaigner. */
    Map<String, Object> consumer(String group) {
        Map<String, Object> props = config.consumer(group == null ? "unused" : group, Delivery.AT_LEAST_ONCE, false, 500, Map.of());
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        if (group == null) {
            props.remove(ConsumerConfig.GROUP_ID_CONFIG);
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        } else {
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(KafkaLeadership.SESSION.toMillis()));
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(KafkaLeadership.SESSION.toMillis() / 3));
            props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "30000");
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, List.of(CooperativeStickyAssignor.class.getName()));
        }
        return props;
    }

    /** Closes every log and leadership opened here, then the producer. Idempotent. */
    public void close() {
        closeOpened();
        KafkaProducer<byte[], byte[]> p;
        synchronized (this) {
            p = producer;
            producer = null;
        }
        if (p != null) {
            p.close(Duration.ofSeconds(5));
        }
    }
}
