package io.switchboard.bench.driver;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The generic SDK driver: any adapter id, through Switchboard's public API only, with metrics on
 * (a {@link SimpleMeterRegistry}), so the figures include everything an application pays for.
 * Messages are published as an application publishes them by default: a key and a payload, no
 * explicit {@code Message.timestamp} (on Kafka the default envelope then writes no {@code ce_time}),
 * so the envelope measured is the one users get. The bench's send time travels in the payload's
 * first 8 bytes ({@link io.switchboard.bench.measure.SendStamp}), as on the native side.
 *
 * <p>Workload broker properties are passed through with the adapter's prefix ({@code linger.ms}
 * becomes {@code kafka.linger.ms}); {@code switchboard.*} properties go as they are, and
 * {@code topic.*} ones become settings of the provisioned destinations.
 */
public final class SdkDriver implements BenchDriver {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final String broker;
    private final String mode;
    private final Delivery delivery;
    private final int prefetch;
    /** Handlers per consumer, as many as the native driver's consumer runs: RocketMQ's consume threads, else one. */
    private final int concurrency;
    private final Map<String, String> topicSettings = new LinkedHashMap<>();
    private final Switchboard switchboard;

    /**
     * Connects.
     *
     * @param broker the adapter id
     * @param mode {@link #SDK}, {@link #SDK_COMPACT} or {@link #SDK_NONE} when the properties ask for the compact or no envelope
     * @param endpoints where the broker is
     * @param passThrough the workload's properties for this broker
     * @param runId unique per run, to keep in-memory brokers apart
     */
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    public SdkDriver(String broker, String mode, BrokerEndpoints endpoints, Map<String, String> passThrough,
            Delivery delivery, int prefetch, String runId) {
        this.broker = broker;
        this.mode = mode;
        this.delivery = delivery;
        this.prefetch = prefetch;
        this.concurrency = broker.equals("rocketmq") ? Integer.parseInt(passThrough.getOrDefault("consume-threads", "8")) : 1;
        Map<String, String> properties = new LinkedHashMap<>(connectionProperties(broker, endpoints, runId));
        passThrough.forEach((key, value) -> {
            if (key.startsWith("topic.")) {
                topicSettings.put(key.substring("topic.".length()), value);
            } else if (key.startsWith("switchboard.")) {
                properties.put(key, value);
            } else {
                properties.put(broker + "." + key, value);
            }
        });
        this.switchboard = (mode.equals(SDK_COST) ? Switchboard.builder().instance(broker, broker, properties)
                : Switchboard.builder().broker(broker).instanceName(broker).properties(properties))
                .meterRegistry(meters).build();
    }

    /** The Switchboard properties that point an adapter at the broker. */
    static Map<String, String> connectionProperties(String broker, BrokerEndpoints endpoints, String runId) {
        return switch (broker) {
            case "kafka" -> Map.of("kafka.bootstrap.servers", endpoints.kafkaBootstrap());
            case "rabbitmq" -> Map.of("rabbitmq.uri", endpoints.rabbitUri());
            case "rocketmq" -> Map.of("rocketmq.namesrv-addr", endpoints.rocketMqNameServer());
            case "memory" -> Map.of("memory.broker", "bench-" + runId, "memory.capacity", "1000000");
            default -> Map.of();
        };
    }

    @Override
    public double clientCpuSeconds() {
        io.micrometer.core.instrument.FunctionCounter cpu = meters.find("switchboard.client.cpu").functionCounter();
        return cpu == null ? Double.NaN : cpu.count();
    }

    @Override
    public String broker() {
        return broker;
    }

    @Override
    public String mode() {
        return mode;
    }

    @Override
    public void createTopic(String topic, int partitions) {
        switchboard.provisioning().ensureDestination(new DestinationSpec(topic, partitions, topicSettings));
    }

    @Override
    public void createTopics(java.util.List<String> topics, int partitions) {
        switchboard.provisioning().ensureDestinations(
                topics.stream().map(t -> new DestinationSpec(t, partitions, topicSettings)).toList());
    }

    @Override
    public BenchProducer createProducer(String topic) {
        Publisher<byte[]> publisher = switchboard.publisher(topic, Codec.bytes()).delivery(delivery).build();
        return new BenchProducer() {
            @Override
            public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
                Message<byte[]> message = Message.builder(payload).key(key).build();
                try {
                    // the callback form, as the native driver uses kafka-clients' Callback: no future per message
                    publisher.publish(message, (receipt, error) -> callback.done(error));
                } catch (RuntimeException e) {
                    callback.done(e);
                }
            }

            @Override
            public void close() {
                publisher.close();
            }
        };
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception {
        Subscription s = switchboard.subscriber(topic, Codec.bytes()).group(subscription).delivery(delivery)
                .maxInFlight(prefetch).concurrency(concurrency)
                .subscribe((message, context) ->
                        listener.received(message.payload()));
        s.ready().toCompletableFuture().get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        return s;
    }

    @Override
    public void deleteTopic(String topic) {
        switchboard.provisioning().deleteDestination(topic);
        switchboard.provisioning().deleteDestination(switchboard.capabilities().deadLetterDestination(topic));
    }

    @Override
    public void close() {
        switchboard.close();
    }
}
