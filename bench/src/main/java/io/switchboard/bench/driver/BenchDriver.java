package io.switchboard.bench.driver;

/**
 * One way of talking to one broker: through Switchboard ({@code sdk}) or through the broker's own
 * client ({@code native}). A driver lives for one run of one workload; the harness creates the
 * topics, then the consumers (waiting until each is ready), then the producers, and closes it all
 * at the end. Methods other than the producers' and listeners' are called from one thread.
 */
public interface BenchDriver extends AutoCloseable {

    /** The mode name for SDK drivers. */
    String SDK = "sdk";
    /** The mode name for native-client drivers. */
    String NATIVE = "native";
    /** The mode name for native drivers that carry the SDK's CloudEvents headers too ({@code --native-envelope}). */
    String NATIVE_ENVELOPE = "native-ce";
    /** The mode name for SDK drivers that publish the compact envelope ({@code switchboard.envelope=compact}, {@code --compact-envelope}). */
    String SDK_COMPACT = "sdk-compact";
    /** The mode name for SDK drivers that publish no envelope ({@code switchboard.envelope=none}, {@code --none-envelope}). */
    String SDK_NONE = "sdk-none";
    /**
     * The mode name for the SDK driver whose Switchboard is a one-instance routed one with the live comparison on
     * ({@code --client-cost}): the run's CSV row then has the comparison's client CPU per message
     * ({@code client_cpu_us_per_msg}, from meter {@code switchboard.client.cpu}) beside the bench's own
     * {@code jvm_cpu_us_per_msg}; with {@code --brokers-in-child} both are the client's alone.
     */
    String SDK_COST = "sdk-cost";
    /** The mode name for the RocketMQ native driver that batches keyed sends in order, as the SDK does ({@code --native-batch}). */
    String NATIVE_BATCH = "native-batch";
    /**
     * The mode name for the RocketMQ native driver that batches keyed sends in order and carries the
     * SDK's CloudEvents headers ({@code --native-batch --native-envelope}): SDK/native-batch-ce is
     * what the SDK's code costs on RocketMQ, like for like.
     */
    String NATIVE_BATCH_ENVELOPE = "native-batch-ce";
    /**
     * The mode name for the Spring peers ({@code --spring-peers}): on Kafka Spring Kafka
     * ({@code KafkaTemplate} and a listener container), on RabbitMQ Spring AMQP ({@code RabbitTemplate}
     * with correlated confirms and a {@code SimpleMessageListenerContainer}), set up with the native
     * driver's client settings and guarantees, sending what a Spring application sends by default.
     */
    String SPRING = "spring";
    /**
     * The mode name for the Spring peers carrying the same headers as {@link #NATIVE_ENVELOPE}
     * ({@code --spring-peers --native-envelope}): SDK/spring-ce compares the SDK with the Spring
     * peer on the same wire content.
     */
    String SPRING_ENVELOPE = "spring-ce";
    /**
     * The mode name for the Spring Cloud Stream peers ({@code --scs-peers}): {@code StreamBridge} and a
     * functional {@code Consumer<Message<byte[]>>} in a Spring Boot application, through the Kafka
     * binder on Kafka and the Rabbit binder on RabbitMQ, on the native driver's topology and with
     * its guarantees.
     */
    String SCS = "scs";

    /** The broker id: {@code kafka}, {@code rabbitmq}, {@code rocketmq} or {@code memory}. */
    String broker();

    /** {@link #SDK}, {@link #NATIVE} or one of the other modes named here. */
    String mode();

    /**
     * {@return the CPU seconds the live comparison has counted for this driver's client so far ({@link #SDK_COST}), or NaN
     * where there is no comparison}
     */
    default double clientCpuSeconds() {
        return Double.NaN;
    }

    /** Creates a topic and waits until the broker has it. */
    void createTopic(String topic, int partitions) throws Exception;

    /**
     * Creates a run's topics, as an application making them at start would: by default one by one; a driver whose
     * client creates many in one call (Kafka's Admin, the SDK's provisioning) overrides this.
     */
    default void createTopics(java.util.List<String> topics, int partitions) throws Exception {
        for (String topic : topics) {
            createTopic(topic, partitions);
        }
    }

    /** A producer for one topic, used by one sender thread at a time. */
    BenchProducer createProducer(String topic) throws Exception;

    /**
     * Starts a consumer and returns once it is ready to receive what is published afterwards.
     *
     * @param subscription the subscription (consumer group) name; consumers of one subscription compete
     * @param index this consumer's index within the subscription, from 0
     * @param consumers how many consumers the subscription has
     */
    AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception;

    /** Deletes a topic and what was created for its subscriptions; best effort. */
    void deleteTopic(String topic) throws Exception;

    /** Closes clients still open. */
    @Override
    void close();
}
