package io.switchboard.bench.driver;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.switchboard.Delivery;
import io.switchboard.bench.driver.ScsSetup.KafkaCommits;
import io.switchboard.bench.driver.ScsSetup.ReadyListener;
import io.switchboard.bench.driver.ScsSetup.Sink;
import io.switchboard.bench.driver.ScsSetup.StreamApplication;
import io.switchboard.bench.workload.Workload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.stream.binder.kafka.KafkaBindingRebalanceListener;
import org.springframework.cloud.stream.function.StreamBridge;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessagingException;
import org.springframework.messaging.SubscribableChannel;
import org.springframework.messaging.support.ErrorMessage;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The Spring Cloud Stream peer (mode {@link #SCS}, {@code --scs-peers}): what a Spring Cloud Stream
 * user would pick instead of Switchboard, on Kafka (the Kafka binder) and RabbitMQ (the Rabbit
 * binder), on the native driver's topology and with its guarantees. Publishing through
 * {@link StreamBridge} in one Spring Boot application context per driver (one output binding per
 * topic); consuming through a functional {@code Consumer<Message<byte[]>>} in one context per bench
 * consumer. The contexts are Boot applications without web server, banner, JMX or logging system of
 * their own; Boot's and the binders' auto-configuration as a Spring Cloud Stream application gets it.
 *
 * <p>Kafka: the harness creates the topics with the admin client ({@code autoCreateTopics=false});
 * the binder's producer gets the native driver's producer settings ({@link KafkaClientSettings}:
 * {@code acks=all} with idempotence at least once) and the key as the record key
 * ({@link KafkaHeaders#KEY}); a send is acknowledged when the binder's {@code recordMetadataChannel}
 * reports it (failures through the error channel, {@code errorChannelEnabled}), correlated by a
 * header the binder's header mapper leaves off the wire. The consumer binding (group = subscription,
 * concurrency 1) gets the native consumer settings, and its container commits after the handler
 * returned, asynchronously every {@code commit-interval} (ack mode {@code TIME}; {@code RECORD} at
 * 0); {@code createConsumer} returns once the binding has its partitions.
 *
 * <p>RabbitMQ: the harness declares the native topology (a durable direct exchange per topic, a
 * durable queue per subscription and partition bound by the partition number) and the binder neither
 * declares exchanges nor binds queues ({@code declareExchange=false}, {@code bindQueue=false}); it
 * redeclares each queue ({@code <topic>.<group>}: the group is the subscription, or
 * {@code <subscription>.<partition>} on a partitioned topic) with the same arguments. Publishing
 * routes by the native driver's partition ({@code routingKeyExpression} on a header left off the
 * wire), persistent, with correlated publisher confirms ({@code useConfirmHeader}: the send's
 * {@link CorrelationData} acknowledges it), at most {@code max-outstanding-confirms} unconfirmed per
 * producer. Each bench consumer binds one consumer binding per queue of its subscription
 * (concurrency 1 each), acknowledge mode {@code AUTO}, prefetch {@code consumerPrefetch} shared out
 * over the queues. At most once: transient messages without confirms, acknowledge mode {@code NONE}.
 *
 * <p>Both brokers send what a Spring Cloud Stream application sends by default for bytes
 * (content-type {@code application/octet-stream}: the binder's header, not the SDK's envelope). The
 * send time travels in the payload's first 8 bytes, as on every side.
 */
final class SpringCloudStreamDriver extends NativeDriver {

    private static final Logger log = LoggerFactory.getLogger(SpringCloudStreamDriver.class);

    /** The header carrying a send's correlation (Kafka) or routing key (RabbitMQ); never mapped to the wire. */
    private static final String BENCH_HEADER = "benchRoute";
    private static final String CONTENT_TYPE = "application/octet-stream";

    private final boolean kafka;
    private final String address;
    private final Workload workload;
    private final String runId;
    private final boolean confirms;
    private final KafkaClientSettings kafkaSettings;
    private final Admin admin;
    private final Connection rabbitTopology;
    private final Map<String, Integer> partitions = new LinkedHashMap<>();
    private final List<String> declaredQueues = new ArrayList<>();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    /** The publishing context's output binding of each topic, built with the first producer. */
    private final Map<String, String> outputs = new LinkedHashMap<>();
    private final Map<Long, BenchProducer.SendCallback> pending = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private StreamBridge bridge;

    SpringCloudStreamDriver(String broker, String address, Workload workload, String runId) throws Exception {
        super(broker, false, SCS);
        this.kafka = broker.equals("kafka");
        this.address = address;
        this.workload = workload;
        this.runId = runId;
        this.confirms = workload.delivery() != Delivery.AT_MOST_ONCE;
        if (kafka) {
            this.kafkaSettings = new KafkaClientSettings(address, workload);
            this.admin = Admin.create(kafkaSettings.admin());
            this.rabbitTopology = null;
        } else {
            this.kafkaSettings = null;
            this.admin = null;
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(address);
            this.rabbitTopology = factory.newConnection("bench-scs-" + runId + "-topology");
        }
    }

    @Override
    public synchronized void createTopic(String topic, int partitionCount) throws Exception {
        if (kafka) {
            admin.createTopics(List.of(kafkaSettings.topic(topic, partitionCount))).all()
                    .get(KafkaNativeDriver.ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } else {
            try (Channel channel = rabbitTopology.createChannel()) {
                channel.exchangeDeclare(topic, BuiltinExchangeType.DIRECT, true);
            }
        }
        partitions.put(topic, partitionCount);
    }

    @Override
    public synchronized BenchProducer createProducer(String topic) {
        if (bridge == null) {
            startPublisher();
        }
        String binding = outputs.get(topic);
        if (binding == null) {
            throw new IllegalStateException("Topic '" + topic + "' was not created through this driver");
        }
        return kafka ? new KafkaProducer(binding) : new RabbitProducer(binding, partitions.get(topic));
    }

    /** The publishing context: one output binding per topic created so far. */
    private void startPublisher() {
        Map<String, Object> properties = ScsSetup.common(kafka, address);
        List<String> bindings = new ArrayList<>();
        for (String topic : partitions.keySet()) {
            String binding = "out" + outputs.size();
            outputs.put(topic, binding);
            bindings.add(binding);
            properties.put("spring.cloud.stream.bindings." + binding + ".destination", topic);
            properties.put("spring.cloud.stream.bindings." + binding + ".content-type", CONTENT_TYPE);
            properties.put("spring.cloud.stream.bindings." + binding + ".producer.error-channel-enabled", confirms);
            if (kafka) {
                String prefix = "spring.cloud.stream.kafka.bindings." + binding + ".producer.";
                properties.put(prefix + "header-patterns", "!" + BENCH_HEADER + ",*");
                if (confirms) {
                    properties.put(prefix + "record-metadata-channel", "benchSendResults");
                }
            } else {
                String prefix = "spring.cloud.stream.rabbit.bindings." + binding + ".producer.";
                properties.put(prefix + "declare-exchange", false);
                properties.put(prefix + "routing-key-expression", "headers['" + BENCH_HEADER + "']");
                properties.put(prefix + "header-patterns", "!" + BENCH_HEADER + ",*");
                properties.put(prefix + "delivery-mode", confirms ? "PERSISTENT" : "NON_PERSISTENT");
                properties.put(prefix + "use-confirm-header", confirms);
            }
        }
        properties.put("spring.cloud.stream.output-bindings", String.join(";", bindings));
        if (kafka) {
            properties.put("spring.cloud.stream.kafka.binder.required-acks", confirms ? "all" : "1");
            kafkaSettings.producer("bench-scs-" + runId).forEach((k, v) ->
                    properties.put("spring.cloud.stream.kafka.binder.producer-properties[" + k + "]", v.toString()));
        } else if (confirms) {
            properties.put("spring.rabbitmq.publisher-confirm-type", "correlated");
        }
        DirectChannel results = new DirectChannel();
        results.subscribe(message -> settle(message, null));
        ConfigurableApplicationContext context = start(properties, ctx -> ctx.registerBean("benchSendResults",
                DirectChannel.class, () -> results));
        context.getBean("errorChannel", SubscribableChannel.class).subscribe(message -> {
            if (message instanceof ErrorMessage error && error.getPayload() instanceof MessagingException failure
                    && failure.getFailedMessage() != null) {
                settle(failure.getFailedMessage(), failure);
            } else {
                log.warn("Spring Cloud Stream error without the failed message: {}", message.getPayload());
            }
        });
        this.bridge = context.getBean(StreamBridge.class);
    }

    /** Completes the send a result or error message correlates to. */
    private void settle(Message<?> message, Throwable error) {
        Object correlation = message.getHeaders().get(BENCH_HEADER);
        BenchProducer.SendCallback callback = correlation instanceof Long id ? pending.remove(id) : null;
        if (callback != null) {
            callback.done(error);
        }
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception {
        int count;
        synchronized (this) {
            count = partitions.getOrDefault(topic, 1);
        }
        Map<String, Object> properties = ScsSetup.common(kafka, address);
        Sink sink = new Sink(listener);
        List<String> functions = new ArrayList<>();
        List<Sink> sinks = new ArrayList<>();
        if (kafka) {
            functions.add("consume0");
            sinks.add(sink);
            String binding = "consume0-in-0";
            properties.put("spring.cloud.stream.bindings." + binding + ".destination", topic);
            properties.put("spring.cloud.stream.bindings." + binding + ".group", subscription);
            properties.put("spring.cloud.stream.bindings." + binding + ".consumer.concurrency", 1);
            String prefix = "spring.cloud.stream.kafka.bindings." + binding + ".consumer.";
            properties.put(prefix + "start-offset", "earliest");
            properties.put(prefix + "poll-timeout", kafkaSettings.pollTimeout().toMillis());
            Map<String, Object> consumer = kafkaSettings.consumer(subscription);
            consumer.remove("group.id");
            consumer.put("client.id", "bench-scs-" + runId + "-" + subscription + "-" + index);
            consumer.forEach((k, v) ->
                    properties.put("spring.cloud.stream.kafka.binder.consumer-properties[" + k + "]", v.toString()));
        } else {
            for (int p = 0; p < count; p++) {
                String queue = RabbitNativeDriver.queueName(topic, subscription, p, count);
                declareQueue(topic, queue, p);
                String function = "consume" + p;
                functions.add(function);
                sinks.add(sink);
                String binding = function + "-in-0";
                properties.put("spring.cloud.stream.bindings." + binding + ".destination", topic);
                properties.put("spring.cloud.stream.bindings." + binding + ".group", queue.substring(topic.length() + 1));
                properties.put("spring.cloud.stream.bindings." + binding + ".consumer.concurrency", 1);
                String prefix = "spring.cloud.stream.rabbit.bindings." + binding + ".consumer.";
                properties.put(prefix + "declare-exchange", false);
                properties.put(prefix + "bind-queue", false);
                properties.put(prefix + "max-concurrency", 1);
                properties.put(prefix + "acknowledge-mode", confirms ? "AUTO" : "NONE");
                properties.put(prefix + "prefetch", Math.max(1, workload.consumerPrefetch() / count));
                ScsSetup.queueProperties(prefix, properties, workload.propertiesFor("rabbitmq"));
            }
        }
        properties.put("spring.cloud.function.definition", String.join(";", functions));
        CompletableFuture<Void> assigned = new CompletableFuture<>();
        Duration commitInterval = kafka ? kafkaSettings.commitInterval() : Duration.ZERO;
        ConfigurableApplicationContext context = start(properties, ctx -> {
            for (int i = 0; i < sinks.size(); i++) {
                Sink s = sinks.get(i);
                ctx.registerBean(functions.get(i), Sink.class, () -> s);
            }
            if (kafka) {
                ctx.registerBean("benchRebalance", KafkaBindingRebalanceListener.class, () -> new ReadyListener(assigned));
                ctx.registerBean("benchContainerCustomizer", KafkaCommits.class, () -> new KafkaCommits(commitInterval));
            }
        });
        if (kafka) {
            try {
                assigned.get(KafkaNativeDriver.ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                close(context);
                throw e;
            }
        }
        // RabbitMQ: the bindings' containers started with the context, each once its consumer consumes
        return () -> close(context);
    }

    /** The native driver's queue, its arguments and its binding by partition number. */
    private void declareQueue(String topic, String queue, int partition) throws IOException, java.util.concurrent.TimeoutException {
        try (Channel channel = rabbitTopology.createChannel()) {
            channel.queueDeclare(queue, true, false, false, RabbitNativeDriver.queueArguments(workload.propertiesFor("rabbitmq")));
            channel.queueBind(queue, topic, Integer.toString(partition));
        }
        synchronized (declaredQueues) {
            declaredQueues.add(queue);
        }
    }

    /** Starts one Spring Boot application context: a Spring Cloud Stream application with these properties and beans. */
    private ConfigurableApplicationContext start(Map<String, Object> properties, Consumer<GenericApplicationContext> beans) {
        // slf4j-simple logs the bench: Boot is not to install a logging system of its own
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(StreamApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties)
                .initializers(ctx -> beans.accept((GenericApplicationContext) ctx))
                .run();
        synchronized (contexts) {
            contexts.add(context);
        }
        return context;
    }

    private void close(ConfigurableApplicationContext context) {
        synchronized (contexts) {
            if (!contexts.remove(context)) {
                return;
            }
        }
        try {
            context.close();
        } catch (RuntimeException e) {
            log.debug("Closing a Spring Cloud Stream context failed", e);
        }
    }

    @Override
    public void deleteTopic(String topic) throws Exception {
        if (kafka) {
            admin.deleteTopics(List.of(topic)).all().get(KafkaNativeDriver.ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return;
        }
        try (Channel channel = rabbitTopology.createChannel()) {
            RabbitNativeDriver.deleteTopology(channel, topic, declaredQueues);
        }
    }

    @Override
    public void close() {
        List<ConfigurableApplicationContext> open;
        synchronized (contexts) {
            open = new ArrayList<>(contexts);
        }
        // consumers first, the publishing context last
        for (int i = open.size() - 1; i >= 0; i--) {
            close(open.get(i));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(10));
        }
        if (rabbitTopology != null) {
            try {
                rabbitTopology.close();
            } catch (IOException | RuntimeException e) {
                // already closed
            }
        }
    }

    /** A Kafka producer: sends through the bridge, the key as the record key, acknowledged by the binder's result channel. */
    private final class KafkaProducer implements BenchProducer {
        private final String binding;

        KafkaProducer(String binding) {
            this.binding = binding;
        }

        @Override
        public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
            MessageBuilder<byte[]> builder = MessageBuilder.withPayload(payload);
            if (key != null) {
                builder.setHeader(KafkaHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
            }
            long id = sequence.incrementAndGet();
            if (confirms) {
                builder.setHeader(BENCH_HEADER, id);
                pending.put(id, callback);
            }
            try {
                if (!bridge.send(binding, builder.build())) {
                    throw new IllegalStateException("StreamBridge did not send to " + binding);
                }
                if (!confirms) {
                    callback.done(null);
                }
            } catch (RuntimeException e) {
                if (!confirms || pending.remove(id) != null) {
                    callback.done(e);
                }
            }
        }

        @Override
        public void close() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** A RabbitMQ producer: routed by partition, a window of unconfirmed sends acknowledged by their correlation data. */
    private final class RabbitProducer implements BenchProducer {
        private final String binding;
        private final int partitionCount;
        private final RabbitConfirmWindow window = new RabbitConfirmWindow(workload.propertiesFor("rabbitmq"));
        private int roundRobin;

        RabbitProducer(String binding, int partitionCount) {
            this.binding = binding;
            this.partitionCount = partitionCount;
        }

        @Override
        public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
            String routingKey = Integer.toString(RabbitNativeDriver.partition(key, roundRobin++, partitionCount));
            MessageBuilder<byte[]> builder = MessageBuilder.withPayload(payload).setHeader(BENCH_HEADER, routingKey);
            if (!confirms) {
                try {
                    bridge.send(binding, builder.build());
                    callback.done(null);
                } catch (RuntimeException e) {
                    callback.done(e);
                }
                return;
            }
            window.publish(callback, correlation ->
                    bridge.send(binding, builder.setHeader(AmqpHeaders.PUBLISH_CONFIRM_CORRELATION, correlation).build()));
        }

        @Override
        public void close() {
            if (confirms) {
                window.awaitConfirms();
            }
        }
    }
}
