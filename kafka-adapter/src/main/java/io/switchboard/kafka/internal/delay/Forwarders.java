package io.switchboard.kafka.internal.delay;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delay forwarders of one adapter, one per subscribed destination that has delay topics: a subscription leases
 * its destination here, and the destination's forwarder (a consumer, a thread and, once it forwards, a producer)
 * starts only once a delay topic of the destination exists, so destinations never published to with a delay cost no
 * client and no thread. A delay topic shows up either when this adapter makes it ({@link #created}, at once) or, when
 * another application made it, when one thread of this adapter lists the topics: at the first lease and every
 * {@code kafka.delay-discovery-interval} (5 s) while any destination is leased without a running forwarder, in one
 * Admin call for all of them. The last lease of a destination to close stops its forwarder; the listing thread ends
 * when nothing is left to look for. The subscription that leases a destination first decides its forwarder's kind:
 * an {@link Delivery#EXACTLY_ONCE} one makes it transactional.
 */
public final class Forwarders implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Forwarders.class);

    private final KafkaClientConfig config;
    private final Duration closeTimeout;
    private final Duration discoveryInterval;
    private final Supplier<Set<String>> topicNames;
    private final Map<String, Entry> byDestination = new HashMap<>();
    private DelayTopics topics;
    /** Lists the topics while a leased destination has no forwarder yet; null otherwise. */
    private ScheduledThreadPoolExecutor discovery;
    private boolean discoveryPending;
    private boolean closed;

    /**
     * @param topicNames the names of the broker's topics (one Admin call), to see delay topics another application made
     */
    public Forwarders(KafkaClientConfig config, Duration closeTimeout, Supplier<Set<String>> topicNames) {
        this.config = config;
        this.closeTimeout = closeTimeout;
        this.topicNames = topicNames;
        this.discoveryInterval = config.duration("delay-discovery-interval", Duration.ofSeconds(5), Map.of());
    }

    /** Sets the delay topics the forwarders route hops through (they tell this registry of new topics). */
    public synchronized void topics(DelayTopics delayTopics) {
        this.topics = delayTopics;
    }

    /**
     * A subscription of the destination starts: the destination's forwarder runs, once the destination has a delay
     * topic, until every lease taken here is closed.
     *
     * @return the lease; closing it more than once has no further effect
     * @throws ConfigurationException when the destination's forwarder would have to start and its settings are malformed
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
                entry = new Entry(spec);
                byDestination.put(destination, entry);
                if (topics != null && topics.knows(destination)) {
                    start(entry);
                } else {
                    discoverSoon();
                }
            }
            entry.leases++;
        }
        Entry leased = entry;
        boolean[] released = new boolean[1];
        return () -> release(destination, leased, released);
    }

    private void release(String destination, Entry leased, boolean[] released) {
        ScheduledThreadPoolExecutor idle = null;
        synchronized (this) {
            if (released[0]) {
                return;
            }
            released[0] = true;
            if (--leased.leases > 0 || byDestination.get(destination) != leased) {
                return;
            }
            byDestination.remove(destination);
            if (byDestination.isEmpty()) {
                idle = discovery;
                discovery = null;
            }
        }
        if (idle != null) {
            idle.shutdownNow();
        }
        if (leased.forwarder != null) {
            leased.forwarder.close();
        }
    }

    /** A delay topic of the destination appeared here: its forwarder, if leased, starts or subscribes again to see it. */
    public void created(String destination) {
        DelayForwarder running;
        synchronized (this) {
            Entry entry = byDestination.get(destination);
            if (entry == null) {
                return;
            }
            running = entry.forwarder;
            if (running == null && !closed) {
                // started off the publishing thread: making the consumer may not hold up a send
                discoveryExecutor().execute(() -> startLeased(destination));
                return;
            }
        }
        if (running != null) {
            running.rediscover();
        }
    }

    private synchronized void startLeased(String destination) {
        Entry entry = byDestination.get(destination);
        if (entry != null && entry.forwarder == null && !closed) {
            startQuietly(entry);
        }
    }

    /** Lists the topics once, soon; further calls before it ran add nothing. */
    private void discoverSoon() {
        if (!discoveryPending) {
            discoveryPending = true;
            discoveryExecutor().execute(this::discover);
        }
    }

    private ScheduledThreadPoolExecutor discoveryExecutor() {
        if (discovery == null) {
            discovery = new ScheduledThreadPoolExecutor(1,
                    DaemonThreads.named(config.threadName("delay-discovery")));
            discovery.setRemoveOnCancelPolicy(true);
            discovery.scheduleWithFixedDelay(this::discover, discoveryInterval.toMillis(), discoveryInterval.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
        return discovery;
    }

    /** On the discovery thread: starts the forwarder of each leased destination that has a delay topic now. */
    private void discover() {
        List<Entry> waiting = new ArrayList<>();
        synchronized (this) {
            discoveryPending = false;
            byDestination.values().stream().filter(e -> e.forwarder == null).forEach(waiting::add);
        }
        if (waiting.isEmpty()) {
            return;
        }
        Set<String> names;
        try {
            names = topicNames.get();
        } catch (RuntimeException e) {
            log.debug("Listing the topics to find delay topics failed; trying again in {}: {}", discoveryInterval, e.toString());
            return;
        }
        synchronized (this) {
            for (Entry entry : waiting) {
                if (!closed && entry.forwarder == null && byDestination.get(entry.destination) == entry
                        && DelayTiers.anyTopic(entry.destination, names)) {
                    startQuietly(entry);
                }
            }
        }
    }

    private void startQuietly(Entry entry) {
        try {
            start(entry);
        } catch (RuntimeException e) {
            log.error("The delay forwarder of '{}' could not start; its delayed messages wait for another replica's "
                    + "forwarder or the next subscription", entry.destination, e);
        }
    }

    private void start(Entry entry) {
        entry.forwarder = create(entry.spec);
        entry.forwarder.start();
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
            return new DelayForwarder(config.threadName("delay-" + destination), destination, topics, consumer, producer, transactional,
                    closeTimeout, config::register);
        } catch (KafkaException e) {
            throw new ConfigurationException("Broker instance '" + config.brokerConfig().instanceName() + "' (kafka): "
                    + "cannot create the delay forwarder's consumer for topic '" + destination + "': " + e.getMessage()
                    + "; check the kafka.* properties", e);
        }
    }

    /** Stops every forwarder still running (subscriptions that were never closed) and the topic listing. */
    @Override
    public void close() {
        List<Entry> left;
        ScheduledThreadPoolExecutor idle;
        synchronized (this) {
            closed = true;
            left = new ArrayList<>(byDestination.values());
            byDestination.clear();
            idle = discovery;
            discovery = null;
        }
        if (idle != null) {
            idle.shutdownNow();
        }
        left.stream().filter(entry -> entry.forwarder != null).forEach(entry -> entry.forwarder.close());
    }

    private static final class Entry {
        final String destination;
        final ConsumerSpec spec;
        DelayForwarder forwarder;
        int leases;

        Entry(ConsumerSpec spec) {
            this.destination = spec.destination();
            this.spec = spec;
        }
    }
}
