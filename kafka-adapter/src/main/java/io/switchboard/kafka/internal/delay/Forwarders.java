package io.switchboard.kafka.internal.delay;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.spi.ConsumerSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;

/**
 * The delay forwarders of one adapter, one per destination that has a subscription here: the first subscription of
 * a destination starts its forwarder, the last one to close stops it (its thread ends). An
 * {@link Delivery#EXACTLY_ONCE} subscription that starts a forwarder makes it transactional.
 */
public final class Forwarders implements AutoCloseable {

    private final KafkaClientConfig config;
    private final Duration closeTimeout;
    private final Map<String, Entry> byDestination = new HashMap<>();
    private DelayTopics topics;
    private boolean closed;

    public Forwarders(KafkaClientConfig config, Duration closeTimeout) {
        this.config = config;
        this.closeTimeout = closeTimeout;
    }

    /** Sets the delay topics the forwarders route hops through (they tell this registry of new topics). */
    public synchronized void topics(DelayTopics delayTopics) {
        this.topics = delayTopics;
    }

    /**
     * A subscription of the destination starts: its forwarder runs until every lease taken here is closed.
     *
     * @return the lease; closing it more than once has no further effect
     */
    public AutoCloseable acquire(ConsumerSpec spec) {
        String destination = spec.destination();
        Entry entry;
        synchronized (this) {
            if (closed) {
                return () -> { };
            }
            entry = byDestination.get(destination);
            if (entry == null) {
                entry = new Entry(create(spec));
                byDestination.put(destination, entry);
                entry.forwarder.start();
            }
            entry.leases++;
        }
        Entry leased = entry;
        boolean[] released = new boolean[1];
        return () -> {
            synchronized (Forwarders.this) {
                if (released[0]) {
                    return;
                }
                released[0] = true;
                if (--leased.leases > 0 || byDestination.get(destination) != leased) {
                    return;
                }
                byDestination.remove(destination);
            }
            leased.forwarder.close();
        };
    }

    /** A delay topic of the destination appeared: its forwarder here, if any, subscribes again to see it at once. */
    public void created(String destination) {
        Entry entry;
        synchronized (this) {
            entry = byDestination.get(destination);
        }
        if (entry != null) {
            entry.forwarder.rediscover();
        }
    }

    private DelayForwarder create(ConsumerSpec spec) {
        Map<String, String> properties = spec.properties();
        String destination = spec.destination();
        Map<String, Object> consumer = config.consumer(DelayTiers.forwarderGroup(destination), Delivery.AT_LEAST_ONCE, false,
                500, properties);
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        consumer.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Long.toString(
                config.duration("delay-discovery-interval", Duration.ofSeconds(5), properties).toMillis()));
        boolean transactional = spec.delivery() == Delivery.EXACTLY_ONCE;
        Map<String, Object> producer = config.producer(transactional ? Delivery.EXACTLY_ONCE : Delivery.AT_LEAST_ONCE,
                destination + ".delay", properties);
        producer.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        try {
            return new DelayForwarder(destination, topics, consumer, producer, transactional, closeTimeout);
        } catch (KafkaException e) {
            throw new ConfigurationException("Broker instance '" + config.brokerConfig().instanceName() + "' (kafka): "
                    + "cannot create the delay forwarder's consumer for topic '" + destination + "': " + e.getMessage()
                    + "; check the kafka.* properties", e);
        }
    }

    /** Stops every forwarder still running (subscriptions that were never closed). */
    @Override
    public void close() {
        List<Entry> left;
        synchronized (this) {
            closed = true;
            left = new ArrayList<>(byDestination.values());
            byDestination.clear();
        }
        left.forEach(entry -> entry.forwarder.close());
    }

    private static final class Entry {
        final DelayForwarder forwarder;
        int leases;

        Entry(DelayForwarder forwarder) {
            this.forwarder = forwarder;
        }
    }
}
