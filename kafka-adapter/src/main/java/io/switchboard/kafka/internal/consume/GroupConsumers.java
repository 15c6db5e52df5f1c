package io.switchboard.kafka.internal.consume;

import io.switchboard.ConfigurationException;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.kafka.internal.provision.KafkaProvisioner;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.KeyFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;

/**
 * The adapter's consumers of groups: subscriptions of one group with the same delivery guarantee and the same client
 * settings share one {@link GroupConsumer} (one client, one poll thread), as long as their topics differ; a second
 * subscription of a topic in the group (a competing member in the same application) goes to the next consumer of
 * that key, a "slot" of its own. Broadcast subscriptions, those starting at an offset or a time ({@link StartSeek}) and
 * those with {@code kafka.share-consumer=false} get a consumer of their own. Shared consumers default to the cooperative sticky assignor (when the application chose no
 * assignor and the classic group protocol), so that a subscription coming or going does not stop the others.
 */
public final class GroupConsumers {

    /** The subscription or instance property that turns sharing off (a client and a thread per subscription). */
    public static final String SHARE = "share-consumer";
    /** How long a busy consumer lets records gather on the broker before its next fetch ({@link FetchLinger}). */
    public static final String LINGER = "fetch-linger";
    /** How many records make a poll busy, so that the next one lingers. */
    public static final String LINGER_RECORDS = "fetch-linger-records";
    /** The default {@value #LINGER}: fetches of about 2 ms of records at full speed. */
    public static final Duration DEFAULT_LINGER = Duration.ofMillis(2);
    /** The default {@value #LINGER_RECORDS}. */
    public static final int DEFAULT_LINGER_RECORDS = 16;

    private final KafkaClientConfig config;
    private final KafkaProvisioner admin;
    private final DeliveryPool pool;
    private final Map<List<Object>, List<GroupConsumer>> shared = new HashMap<>();
    private int sharedLive;
    private int slots;

    public GroupConsumers(KafkaClientConfig config, KafkaProvisioner admin) {
        this.config = config;
        this.admin = admin;
        this.pool = new DeliveryPool(config.threadName("deliver"));
    }

    /** {@return the subscription's raw consumer, attached to a shared group consumer or to one of its own} */
    public synchronized Attachment create(ConsumerSpec spec, Consumer<AutoCloseable> onClosed) {
        boolean share = !spec.broadcast() && !StartSeek.seeks(spec.startFrom())
                && config.brokerConfig().with(spec.properties()).getBoolean(KafkaClientConfig.PREFIX + SHARE, true);
        Map<String, Object> clientConfig = config.consumer(spec.group(), spec.delivery(), spec.broadcast(),
                share ? 500 : spec.maxInFlight(), spec.properties(), spec.startFrom());
        if (share && !clientConfig.containsKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)
                && "classic".equals(String.valueOf(clientConfig.getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic"))
                        .trim().toLowerCase(Locale.ROOT))) {
            clientConfig.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        }
        Duration poll = config.duration("poll-timeout", Duration.ofMillis(100), spec.properties());
        Duration commit = config.duration("commit-interval", Duration.ofMillis(100), spec.properties());
        Duration close = config.duration("close-timeout", Duration.ofSeconds(30), spec.properties());
        Duration drain = config.duration("revoke-drain-timeout", Duration.ofSeconds(5), spec.properties());
        Duration linger = config.duration(LINGER, DEFAULT_LINGER, spec.properties());
        int busy = config.brokerConfig().with(spec.properties()).getInt(KafkaClientConfig.PREFIX + LINGER_RECORDS, 1,
                DEFAULT_LINGER_RECORDS);
        if (linger.isNegative()) {
            throw new ConfigurationException("Broker instance '" + config.brokerConfig().instanceName() + "' (kafka): "
                    + KafkaClientConfig.PREFIX + LINGER + "=" + linger + " is negative; use a duration such as 2ms, or 0 "
                    + "to poll again at once");
        }
        GroupConsumer chosen = null;
        List<GroupConsumer> slotsOfKey = null;
        if (share) {
            slotsOfKey = shared.computeIfAbsent(List.of(spec.delivery(), clientConfig, poll, commit, close, drain, linger, busy), k -> new ArrayList<>());
            for (GroupConsumer candidate : slotsOfKey) {
                if (!candidate.reserved.contains(spec.destination())) {
                    chosen = candidate;
                    break;
                }
            }
        }
        if (chosen == null) {
            String thread = share ? "group-" + spec.group() + "-" + (++slots) : spec.destination() + "-" + spec.group();
            KafkaConsumer<byte[], byte[]> client = client(spec, clientConfig); // refuses bad client settings first
            int maxPollRecords = Integer.parseInt(String.valueOf(clientConfig.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG)).trim());
            chosen = new GroupConsumer(new GroupConsumer.Settings(spec.group(), spec.delivery(), share, spec.broadcast(),
                    config.threadName(thread), poll, commit, close, drain, new FetchLinger(linger, busy, maxPollRecords),
                    config.brokerConfig().events()),
                    client, admin, this, pool);
            if (share) {
                slotsOfKey.add(chosen);
                sharedLive++;
            }
        }
        chosen.reserved.add(spec.destination());
        return new Attachment(spec, KeyFormat.of(spec.properties(), config.brokerConfig()), chosen, pool, onClosed);
    }

    private KafkaConsumer<byte[], byte[]> client(ConsumerSpec spec, Map<String, Object> clientConfig) {
        try {
            return new KafkaConsumer<>(clientConfig);
        } catch (KafkaException e) {
            throw new ConfigurationException("Broker instance '" + config.brokerConfig().instanceName() + "' (kafka): "
                    + "cannot create a consumer for topic '" + spec.destination() + "': " + e.getMessage()
                    + "; check the kafka.* properties", e);
        }
    }

    /**
     * A subscription of the consumer lets its topic go.
     *
     * @param onlyIfLast true to let it go only when it is the consumer's last (then nothing can attach meanwhile)
     * @return true when the consumer has no subscription left: it is retired and must close
     */
    synchronized boolean release(GroupConsumer consumer, String topic, boolean onlyIfLast) {
        if (consumer.retired || !consumer.reserved.contains(topic)) {
            return false;
        }
        if (onlyIfLast && consumer.reserved.size() > 1) {
            return false;
        }
        consumer.reserved.remove(topic);
        if (!consumer.reserved.isEmpty()) {
            return false;
        }
        consumer.retired = true;
        unregister(consumer);
        return true;
    }

    /** The consumer failed: new subscriptions of its key get a new one. */
    synchronized void ended(GroupConsumer consumer) {
        unregister(consumer);
    }

    private void unregister(GroupConsumer consumer) {
        for (var it = shared.values().iterator(); it.hasNext(); ) {
            List<GroupConsumer> slotsOfKey = it.next();
            if (slotsOfKey.remove(consumer)) {
                if (slotsOfKey.isEmpty()) {
                    it.remove();
                }
                if (--sharedLive == 0) {
                    pool.shutdown();
                }
                return;
            }
        }
    }

    /** The adapter closes (after its subscriptions): ends the delivery pool's threads. */
    public void close() {
        pool.shutdown();
    }
}
