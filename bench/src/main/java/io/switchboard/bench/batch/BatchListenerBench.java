package io.switchboard.bench.batch;

import com.sun.management.OperatingSystemMXBean;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.bench.env.BrokerChild;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;

/**
 * How fast a consumer group drains a backlog, per listener kind: Switchboard's single-message listener
 * ({@code sdk-single}), its batch listener ({@code sdk-batch}), and on Kafka Spring Kafka's record and batch listeners
 * ({@code spring-single}, {@code spring-batch}: a {@link ConcurrentMessageListenerContainer}, concurrency 1, ack mode
 * BATCH, kafka-clients defaults). A backlog of {@code bench.messages} (200,000) messages of {@code bench.payload}
 * (1,024) bytes is published first; each run is a new group reading it from the start (RabbitMQ: the group's queue is
 * declared, filled, then read), timed from the first message handled to the last (the group's join is not the drain),
 * after {@code bench.warmup-reps} (1) passes of every mode that are printed but not counted. The handlers only count.
 * Kafka and RocketMQ run in child JVMs; RabbitMQ is the local server. Client CPU is this JVM's, a message.
 *
 * <p>Settings (system properties): {@code bench.brokers} (kafka,rabbitmq,rocketmq), {@code bench.modes}
 * (sdk-single,sdk-batch,spring-single,spring-batch; the spring ones on Kafka only), {@code bench.reps} (3; modes
 * alternate in order), {@code bench.batch} (100, the SDK's batch size), {@code bench.max-in-flight} (1000, both SDK
 * modes), {@code bench.rabbit-uri}.
 *
 * <p>Run: {@code mvn -B -q package -pl bench -am -DskipTests && java -cp bench/target/switchboard-bench.jar
 * io.switchboard.bench.batch.BatchListenerBench}. Prints one line per run and the medians.
 */
public final class BatchListenerBench {

    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(5);

    private BatchListenerBench() {}

    public static void main(String[] args) throws Exception {
        List<String> brokers = List.of(System.getProperty("bench.brokers", "kafka,rabbitmq,rocketmq").split(","));
        List<String> modes = List.of(System.getProperty("bench.modes", "sdk-single,sdk-batch,spring-single,spring-batch")
                .split(","));
        int reps = Integer.getInteger("bench.reps", 3);
        int warmups = Integer.getInteger("bench.warmup-reps", 1);
        int messages = Integer.getInteger("bench.messages", 200_000);
        int payloadBytes = Integer.getInteger("bench.payload", 1024);
        int batch = Integer.getInteger("bench.batch", 100);
        int inFlight = Integer.getInteger("bench.max-in-flight", 1000);
        String rabbitUri = System.getProperty("bench.rabbit-uri", "amqp://guest:guest@127.0.0.1:5672/");
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "batch listeners: %d messages of %d B drained by a new group; SDK batch %d, max in flight %d; "
                + "java %s, %d cores%n", messages, payloadBytes, batch, inFlight, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        byte[] payload = new byte[payloadBytes];
        ThreadLocalRandom.current().nextBytes(payload);
        for (String broker : brokers) {
            BrokerChild child = broker.equals("rabbitmq") ? null : BrokerChild.start(broker);
            try {
                Map<String, String> props = switch (broker) {
                    case "kafka" -> Map.of("kafka.bootstrap.servers", child.address());
                    case "rocketmq" -> Map.of("rocketmq.namesrv-addr", child.address());
                    case "rabbitmq" -> Map.of("rabbitmq.uri", rabbitUri);
                    default -> throw new IllegalArgumentException("bench.brokers: unknown broker '" + broker
                            + "'; use kafka, rabbitmq, rocketmq");
                };
                try (Switchboard sb = Switchboard.builder().broker(broker).properties(props).build()) {
                    String topic = "batch-" + UUID.randomUUID().toString().substring(0, 8);
                    boolean backlogOnce = !broker.equals("rabbitmq"); // a new group reads a log from its start
                    if (backlogOnce) {
                        fill(sb, topic, messages, payload);
                    }
                    Map<String, List<double[]>> results = new HashMap<>();
                    for (int rep = -warmups; rep < reps; rep++) {
                        List<String> order = new ArrayList<>(modes);
                        order.removeIf(m -> m.startsWith("spring") && !broker.equals("kafka"));
                        if (Math.floorMod(rep, 2) == 1) {
                            Collections.reverse(order);
                        }
                        for (String mode : order) {
                            String group = mode + "-" + (rep + warmups);
                            if (!backlogOnce) { // the group's queue exists before its backlog is published
                                sb.subscriber(topic, Codec.bytes()).group(group).subscribe((m, c) -> { }).close();
                                fill(sb, topic, messages, payload);
                            }
                            System.gc();
                            double[] r = drain(sb, broker, child == null ? null : child.address(), topic, group, mode,
                                    messages, batch, inFlight);
                            if (rep >= 0) {
                                results.computeIfAbsent(mode, k -> new ArrayList<>()).add(r);
                            }
                            out.printf(Locale.ROOT, "%-9s %-14s %s: %,.0f msg/s, %.2f us client CPU a message%n", broker,
                                    mode, rep < 0 ? "warm-up" : "rep " + (rep + 1), r[0], r[1]);
                        }
                    }
                    results.forEach((mode, runs) -> out.printf(Locale.ROOT, "%-9s %-14s median of %d: %,.0f msg/s, %.2f us "
                            + "client CPU a message%n", broker, mode, runs.size(), median(runs, 0), median(runs, 1)));
                    sb.provisioning().deleteDestination(topic);
                }
            } finally {
                if (child != null) {
                    child.close();
                }
            }
        }
    }

    private static void fill(Switchboard sb, String topic, int messages, byte[] payload) {
        try (Publisher<byte[]> p = sb.publisher(topic, Codec.bytes()).build()) {
            int chunk = 1000;
            for (int i = 0; i < messages; i += chunk) {
                List<Message<byte[]>> batch = new ArrayList<>(chunk);
                for (int j = i; j < Math.min(messages, i + chunk); j++) {
                    batch.add(Message.of("k" + (j % 64), payload));
                }
                p.publishAll(batch).toCompletableFuture().orTimeout(2, TimeUnit.MINUTES).join();
            }
        }
    }

    /** Drains the backlog with a new group; returns messages a second and client CPU microseconds a message. */
    private static double[] drain(Switchboard sb, String broker, String bootstrap, String topic, String group, String mode,
            int messages, int batch, int inFlight) throws Exception {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Counter handled = new Counter(os);
        long start = System.nanoTime();
        AutoCloseable consumer = switch (mode) {
            case "sdk-single" -> sb.subscriber(topic, Codec.bytes()).group(group).maxInFlight(inFlight)
                    .subscribe((m, c) -> handled.add(1));
            case "sdk-batch" -> sb.subscriber(topic, Codec.bytes()).group(group).maxInFlight(inFlight).batchSize(batch)
                    .subscribeBatch(b -> handled.add(b.size()));
            case "spring-single", "spring-batch" -> spring(bootstrap, topic, group, mode.equals("spring-batch"), handled);
            default -> throw new IllegalArgumentException("bench.modes: unknown mode '" + mode + "'; use sdk-single, "
                    + "sdk-batch, spring-single, spring-batch");
        };
        try {
            long deadline = start + DRAIN_LIMIT.toNanos();
            while (handled.get() < messages) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(broker + " " + mode + ": " + handled.get() + " of " + messages
                            + " handled within " + DRAIN_LIMIT);
                }
                LockSupport.parkNanos(1_000_000);
            }
            double seconds = (System.nanoTime() - handled.firstNanos) / 1e9;
            double cpuMicros = (os.getProcessCpuTime() - handled.firstCpu) / 1e3 / messages;
            return new double[] {messages / seconds, cpuMicros};
        } finally {
            consumer.close();
        }
    }

    /** Messages handled; the time and process CPU at the first (the group's join, seconds on Kafka, is not the drain). */
    private static final class Counter {
        private final AtomicLong count = new AtomicLong();
        private final OperatingSystemMXBean os;
        volatile long firstNanos;
        volatile long firstCpu;

        Counter(OperatingSystemMXBean os) {
            this.os = os;
        }

        void add(long n) {
            if (count.getAndAdd(n) == 0) {
                firstCpu = os.getProcessCpuTime();
                firstNanos = System.nanoTime();
            }
        }

        long get() {
            return count.get();
        }
    }

    private static AutoCloseable spring(String bootstrap, String topic, String group, boolean batch, Counter handled) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        ContainerProperties props = new ContainerProperties(topic);
        props.setGroupId(group);
        props.setAckMode(ContainerProperties.AckMode.BATCH);
        if (batch) {
            props.setMessageListener((BatchMessageListener<byte[], byte[]>) records -> handled.add(records.size()));
        } else {
            props.setMessageListener((MessageListener<byte[], byte[]>) record -> handled.add(1));
        }
        ConcurrentMessageListenerContainer<byte[], byte[]> container = new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(c), props);
        container.setBeanName("bench-" + group);
        container.start();
        return container::stop;
    }

    private static double median(List<double[]> runs, int index) {
        double[] v = runs.stream().mapToDouble(r -> r[index]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
