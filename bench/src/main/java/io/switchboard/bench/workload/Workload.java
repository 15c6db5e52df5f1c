package io.switchboard.bench.workload;

import io.switchboard.Delivery;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One benchmark workload: the shape of the traffic (OpenMessaging Benchmark's fields), how long it
 * runs, the delivery guarantee, and broker properties passed through to both the SDK and the
 * native client. A workload file with a {@code grid} expands into one workload per grid point;
 * {@link #variant()} names the point.
 *
 * @param name the workload's name (the file's {@code name})
 * @param variant the grid point, such as {@code partitionsPerTopic=5 kafka.batch.size=10000}, or empty
 * @param description what the workload measures
 * @param brokers the brokers it is meant for (empty: every broker asked for)
 * @param topics topics
 * @param partitionsPerTopic partitions (Kafka), queues (RocketMQ), partition queues (RabbitMQ)
 * @param payload the message payload (from {@code messageSize} or {@code payloadFile})
 * @param producersPerTopic producers per topic
 * @param subscriptionsPerTopic subscriptions (consumer groups) per topic: each gets every message
 * @param consumersPerSubscription competing consumers in each subscription
 * @param producerRate messages per second across all producers; 0 = as fast as the brokers take them
 * @param duration how long to measure, or null when {@code messageCount} is given
 * @param messageCount how many messages to measure (across all producers), or 0 when {@code duration} is given
 * @param warmup how long to run before measuring (excluded from every figure)
 * @param delivery the delivery guarantee for publishing and consuming
 * @param keyDistribution how keys are chosen
 * @param synchronous whether each producer waits for the broker's acknowledgement before its next send
 * @param maxOutstanding unacknowledged sends per producer thread at most (asynchronous producers)
 * @param consumerPrefetch messages a consumer holds unacknowledged at most
 * @param drainTimeout how long to wait, once producers stop, for consumers to receive the rest
 * @param brokerProperties per broker id, properties passed through (see {@code bench/README.md})
 * @param study the published study this workload reproduces
 */
public record Workload(
        String name,
        String variant,
        String description,
        List<String> brokers,
        int topics,
        int partitionsPerTopic,
        Payload payload,
        int producersPerTopic,
        int subscriptionsPerTopic,
        int consumersPerSubscription,
        long producerRate,
        Duration duration,
        long messageCount,
        Duration warmup,
        Delivery delivery,
        KeyDistribution keyDistribution,
        boolean synchronous,
        int maxOutstanding,
        int consumerPrefetch,
        Duration drainTimeout,
        Map<String, Map<String, String>> brokerProperties,
        Study study) {

    /** Copies the collections. */
    public Workload {
        brokers = List.copyOf(brokers);
        brokerProperties = Map.copyOf(brokerProperties);
    }

    /** The name and, when there is one, the grid point. */
    public String label() {
        return variant.isEmpty() ? name : name + " [" + variant + "]";
    }

    /** The properties passed through to one broker (SDK and native client alike), never null. */
    public Map<String, String> propertiesFor(String broker) {
        return brokerProperties.getOrDefault(broker, Map.of());
    }

    /** True when it runs for a fixed number of messages rather than a fixed time. */
    public boolean countBased() {
        return messageCount > 0;
    }

    /** True when producers send as fast as they can. */
    public boolean maxRate() {
        return producerRate == 0;
    }

    /** All producers. */
    public int totalProducers() {
        return topics * producersPerTopic;
    }

    /** The same workload with durations multiplied by {@code scale} (message counts are kept). */
    public Workload scaled(double scale) {
        if (scale == 1.0) {
            return this;
        }
        return new Workload(name, variant, description, brokers, topics, partitionsPerTopic, payload, producersPerTopic,
                subscriptionsPerTopic, consumersPerSubscription, producerRate, scale(duration, scale), messageCount,
                scale(warmup, scale), delivery, keyDistribution, synchronous, maxOutstanding, consumerPrefetch,
                drainTimeout, brokerProperties, study);
    }

    /**
     * The same workload as repetition {@code n} (from 2) of its point: the variant says so, so that
     * each repetition pairs its own SDK and native runs and reports as a point of its own.
     */
    public Workload repetition(int n) {
        String again = "run " + n;
        return new Workload(name, variant.isEmpty() ? again : variant + " " + again, description, brokers, topics,
                partitionsPerTopic, payload, producersPerTopic, subscriptionsPerTopic, consumersPerSubscription, producerRate,
                duration, messageCount, warmup, delivery, keyDistribution, synchronous, maxOutstanding, consumerPrefetch,
                drainTimeout, brokerProperties, study);
    }

    /** The same workload measured for {@code length} after no warm-up of its own: the suite's JVM warm-up run. */
    public Workload forWarmUp(Duration length) {
        return new Workload(name, variant, description, brokers, topics, partitionsPerTopic, payload, producersPerTopic,
                subscriptionsPerTopic, consumersPerSubscription, producerRate, length, 0, Duration.ofMillis(1), delivery,
                keyDistribution, synchronous, maxOutstanding, consumerPrefetch, drainTimeout, brokerProperties, study);
    }

    private static Duration scale(Duration d, double scale) {
        return d == null ? null : Duration.ofMillis(Math.max(1, Math.round(d.toMillis() * scale)));
    }

    /**
     * A message payload.
     *
     * @param bytes the bytes every message carries
     * @param origin where they came from: {@code 544 B} or the payload file's name
     */
    public record Payload(byte[] bytes, String origin) {
        /** The size in bytes. */
        public int size() {
            return bytes.length;
        }
    }
}
