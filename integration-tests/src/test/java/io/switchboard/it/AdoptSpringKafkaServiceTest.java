package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Requester;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.TypeDispatch;
import io.switchboard.TypedCodec;
import io.switchboard.routing.Route;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.kafka.support.serializer.JacksonJsonDeserializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * An order service written after a Spring Kafka application's patterns moves to Switchboard alone: its topic carries
 * two payload types as JSON with Spring's type ids ({@code __TypeId__}, with a type mapping) and Long keys; its
 * neighbours keep spring-kafka's {@code JacksonJsonSerializer}/{@code JacksonJsonDeserializer} with
 * {@code LongSerializer}/{@code LongDeserializer}. Both directions are read, types and keys intact and every record on
 * the partition the neighbour's producer would have chosen; then the topic is mirrored to RabbitMQ and migrated there
 * while the neighbour keeps reading Kafka until the cutover.
 */
@DisplayName("Adopting a Spring Kafka service: JSON type ids and Long keys, then mirror and migrate")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AdoptSpringKafkaServiceTest extends RoutingTestSupport {

    /** One payload type of the topic. */
    public record OrderPlaced(String order, long cents) {}

    /** The other. */
    public record OrderShipped(String order, String carrier) {}

    /** Spring's type mapping, the same on both sides: tokens on the wire instead of class names. */
    private static final String TYPE_MAPPINGS = "placed:" + OrderPlaced.class.getName() + ",shipped:" + OrderShipped.class.getName();
    private static final int PARTITIONS = 6;
    private static final int KEYS = 100;

    private static KafkaProducer<Long, Object> springProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, LongSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, JacksonJsonSerializer.class.getName());
        p.put(JacksonJsonSerializer.TYPE_MAPPINGS, TYPE_MAPPINGS);
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<Long, Object> springConsumer(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, JacksonJsonDeserializer.class.getName());
        p.put(JacksonJsonDeserializer.TRUSTED_PACKAGES, OrderPlaced.class.getPackageName());
        p.put(JacksonJsonDeserializer.TYPE_MAPPINGS, TYPE_MAPPINGS);
        return new KafkaConsumer<>(p);
    }

    /** What the neighbour's consumer saw: values by order id, keys, and records off the expected partition. */
    static final class NeighbourView {
        final Map<String, Object> values = new ConcurrentHashMap<>();
        final AtomicInteger typeErrors = new AtomicInteger();
        final AtomicInteger wrongPartition = new AtomicInteger();
        final AtomicInteger wrongKey = new AtomicInteger();

        void add(ConsumerRecord<Long, Object> r) {
            Object v = r.value();
            String order = v instanceof OrderPlaced p ? p.order() : v instanceof OrderShipped s ? s.order() : null;
            if (order == null) {
                typeErrors.incrementAndGet();
                return;
            }
            boolean placed = order.endsWith("-p");
            if (placed != v instanceof OrderPlaced) {
                typeErrors.incrementAndGet();
            }
            long key = Long.parseLong(order.substring(order.indexOf('#') + 1, order.lastIndexOf('-')));
            if (r.key() == null || r.key() != key) {
                wrongKey.incrementAndGet();
            }
            if (r.partition() != partitionOf(key)) {
                wrongPartition.incrementAndGet();
            }
            values.put(order, v);
        }

        long count(String prefix) {
            return values.keySet().stream().filter(o -> o.startsWith(prefix)).count();
        }
    }

    /** The partition kafka-clients' default partitioner gives a record with this key under LongSerializer. */
    static int partitionOf(long key) {
        return Utils.toPositive(Utils.murmur2(new LongSerializer().serialize("t", key))) % PARTITIONS;
    }

    /** Order ids carry their key and type: {@code <phase>-<i>#<key>-p} (placed) or {@code -s} (shipped). */
    static Object payload(String phase, int i) {
        long key = 1_000_000_000_000L + i % KEYS;
        String order = phase + "-" + i + "#" + key + (i % 2 == 0 ? "-p" : "-s");
        return i % 2 == 0 ? new OrderPlaced(order, i) : new OrderShipped(order, "ups");
    }

    static long keyOf(Object payload) {
        String order = payload instanceof OrderPlaced p ? p.order() : ((OrderShipped) payload).order();
        return Long.parseLong(order.substring(order.indexOf('#') + 1, order.lastIndexOf('-')));
    }

    @Test
    @DisplayName("the ported service and its Spring Kafka neighbours read each other, then the topic is mirrored and migrated")
    void adoptMirrorMigrate() throws Exception {
        String topic = destination("orders");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        NeighbourView neighbour = new NeighbourView();
        AtomicBoolean stop = new AtomicBoolean();
        Thread audit = new Thread(() -> {
            try (KafkaConsumer<Long, Object> c = springConsumer("spring-audit-" + topic)) {
                c.subscribe(List.of(topic));
                while (!stop.get()) {
                    c.poll(Duration.ofMillis(200)).forEach(neighbour::add);
                }
            }
        }, "spring-audit");
        audit.setDaemon(true);
        audit.start();
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        Map<String, String> kafkaLong = props(kafka(), Map.of("switchboard.key-format", "long"));
        Map<String, String> rabbitLong = props(rabbit(), Map.of("switchboard.key-format", "long"));
        Switchboard sb = closeAfter(builder().instance("kafka", "kafka", kafkaLong).instance("rabbit", "rabbitmq", rabbitLong)
                .route(topic, Route.single("kafka")).build());
        Invoices invoices = new Invoices(handled);
        // tag::adopt-kafka-dispatch[]
        TypeDispatch billing = TypeDispatch.json()
                .on("placed", OrderPlaced.class, (m, ctx) -> invoices.open(m.payload(), Long.parseLong(m.key())))
                .on("shipped", OrderShipped.class, (m, ctx) -> invoices.close(m.payload(), Long.parseLong(m.key())))
                .build(); // any other type id: to the dead-letter destination at once
        Subscription subscription = sb.subscriber(topic, billing.codec()).group("billing").subscribe(billing);
        // end::adopt-kafka-dispatch[]
        subscription.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        // tag::adopt-kafka-publisher[]
        Publisher<Object> orders = sb.publisher(topic, TypedCodec.json()
                .type("placed", OrderPlaced.class) // the tokens of spring.json.type.mapping, or type(Class): its name
                .type("shipped", OrderShipped.class)
                .build()).build();
        // end::adopt-kafka-publisher[]
        int n = 1000;
        try (KafkaProducer<Long, Object> checkout = springProducer()) {
            // 1. the Spring producer's records reach the ported consumer, dispatched by type, Long keys as text
            for (int i = 0; i < n; i++) {
                Object p = payload("spring", i);
                checkout.send(new ProducerRecord<>(topic, keyOf(p), p));
            }
            checkout.flush();
            await().atMost(TIMEOUT).until(() -> count(handled, "spring-") == n);
            // 2. the ported producer's records reach the Spring consumer: types, Long keys, the producer's partitions
            publish(orders, "ported", n, "kafka");
            await().atMost(TIMEOUT).until(() -> neighbour.count("ported-") == n && neighbour.count("spring-") == n);
            await().atMost(TIMEOUT).until(() -> count(handled, "ported-") == n);
            report("adopt", 2 * n, neighbour, neighbour.count("spring-") + neighbour.count("ported-"), 2 * n, handled,
                    count(handled, "spring-") + count(handled, "ported-"), 2 * n, invoices);

            // 3. mirror to RabbitMQ: the neighbour still reads everything on Kafka, the service handles each once
            sb.routing().update(topic, Route.mirror("kafka", "rabbit"));
            publish(orders, "mirror", n, "kafka");
            await().atMost(TIMEOUT).until(() -> neighbour.count("mirror-") == n && count(handled, "mirror-") == n);
            await().atMost(TIMEOUT).until(() -> sb.routing().shadowReport(topic).shadowSeen() >= n);
            System.out.println(sb.routing().shadowReport(topic).summary());
            assertThat(sb.routing().shadowReport(topic).clean()).isTrue();
            report("mirror", n, neighbour, neighbour.count("mirror-"), n, handled, count(handled, "mirror-"), n,
                    invoices);

            // 4. migrate: the service publishes to RabbitMQ and reads both; the Spring producer still writes Kafka
            sb.routing().update(topic, Route.migrate("kafka", "rabbit"));
            publish(orders, "migrated", n, "rabbit");
            for (int i = 0; i < n; i++) {
                Object p = payload("late", i);
                checkout.send(new ProducerRecord<>(topic, keyOf(p), p));
            }
            checkout.flush();
            await().atMost(TIMEOUT).until(() -> count(handled, "migrated-") == n && count(handled, "late-") == n);
            await().atMost(TIMEOUT).until(() -> neighbour.count("late-") == n);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> handled.values().stream().allMatch(c -> c == 1));
            assertThat(neighbour.count("migrated-")).as("after the cutover the neighbour on Kafka gets none of the service's")
                    .isZero();
            report("migrate", 2 * n, neighbour, neighbour.count("late-"), n, handled,
                    count(handled, "migrated-") + count(handled, "late-"), 2 * n, invoices);
        } finally {
            stop.set(true);
            audit.join(10_000);
        }
    }

    @Test
    @DisplayName("the ported service keeps three consumer habits: a batch listener, non-retryable exceptions, request/reply")
    void portedHabits() throws Exception {
        String topic = destination("habits");
        String rates = destination("rates");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Map<String, String> kafkaLong = props(kafka(), Map.of("switchboard.key-format", "long"));
        // the carrier-rates service the ported one asks, as it asked it with ReplyingKafkaTemplate
        Switchboard pricing = closeAfter(builder().broker("kafka").properties(kafka()).build());
        pricing.subscriber(rates, Codec.utf8()).group("rates").subscribeReplying(Codec.utf8(),
                (m, c) -> m.payload().equals("ups") ? "7.50" : "9.90").ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        Switchboard sb = closeAfter(builder().broker("kafka").properties(kafkaLong).build());
        Requester<String, String> rate = sb.requester(rates, Codec.utf8(), Codec.utf8()).timeout(TIMEOUT).build();
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        Map<String, String> rated = new ConcurrentHashMap<>();
        AtomicInteger batches = new AtomicInteger();
        TypedCodec<Object> orders = TypedCodec.json().type("placed", OrderPlaced.class).type("shipped", OrderShipped.class)
                .build();
        // habit 1: a validation failure is not retried (Spring Kafka's addNotRetryableExceptions)
        RetryPolicy retry = RetryPolicy.fixed(3, Duration.ofMillis(20)).notRetrying(IllegalArgumentException.class);
        // habit 2: a batch listener (Spring Kafka's listener.type: batch), failing only the invalid records
        sb.subscriber(topic, orders).group("billing").retry(retry).batchSize(100).subscribeBatch(batch -> {
            batches.incrementAndGet();
            Map<Integer, CompletableFuture<Message<String>>> asked = new java.util.HashMap<>();
            for (int i = 0; i < batch.size(); i++) {
                Object order = batch.messages().get(i).payload();
                if (order instanceof OrderPlaced p && p.cents() < 0) {
                    batch.fail(i, new IllegalArgumentException("order " + p.order() + " has negative cents"));
                } else if (order instanceof OrderShipped shipped) { // habit 3: request/reply to the rates service
                    asked.put(i, rate.request(Message.of(shipped.carrier())));
                }
            }
            for (int i = 0; i < batch.size(); i++) {
                Object order = batch.messages().get(i).payload();
                String id = order instanceof OrderPlaced p ? p.order() : ((OrderShipped) order).order();
                CompletableFuture<Message<String>> reply = asked.get(i);
                if (reply != null) {
                    rated.put(id, reply.get(60, TimeUnit.SECONDS).payload());
                }
                if (!(order instanceof OrderPlaced p && p.cents() < 0)) {
                    handled.merge(id, 1, Integer::sum);
                }
            }
        }).ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        Switchboard audit = closeAfter(builder().broker("kafka").properties(kafkaLong).build());
        Map<String, String> dead = new ConcurrentHashMap<>();
        audit.subscriber(sb.capabilities().deadLetterDestination(topic), Codec.bytes()).group("audit").subscribe((m, c) ->
                dead.put(new String(m.payload(), java.nio.charset.StandardCharsets.UTF_8),
                        m.headers().get(io.switchboard.Envelope.DEAD_LETTER_REASON) + "/"
                                + m.headers().get(io.switchboard.Envelope.DEAD_LETTER_ATTEMPTS)))
                .ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        int n = 1000;
        int invalid = 0;
        try (KafkaProducer<Long, Object> checkout = springProducer()) {
            for (int i = 0; i < n; i++) {
                Object p = payload("habit", i);
                if (i % 100 == 0) { // an invalid order: placed with negative cents
                    p = new OrderPlaced(((OrderPlaced) p).order(), -1);
                    invalid++;
                }
                checkout.send(new ProducerRecord<>(topic, keyOf(p), p));
            }
            checkout.flush();
        }
        int valid = n - invalid;
        int expectedInvalid = invalid;
        await().atMost(TIMEOUT).until(() -> handled.size() == valid && dead.size() == expectedInvalid);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> handled.values().stream().allMatch(c -> c == 1));
        long duplicates = handled.values().stream().filter(c -> c > 1).count();
        long wrongRates = rated.values().stream().filter(r -> !r.equals("7.50")).count();
        System.out.printf("habits=spring-kafka-orders broker=kafka sent=%d batches=%d handled=%d dead_letters=%d "
                + "(%s) replies=%d wrong_replies=%d pending_replies=%d duplicates=%d lost=%d%n", n, batches.get(),
                handled.size(), dead.size(), Set.copyOf(dead.values()), rated.size(), wrongRates, rate.pending(), duplicates,
                n - handled.size() - dead.size());
        assertThat(dead.values()).as("invalid orders, dead-lettered at once").allMatch(v -> v.equals("non-retryable/1"));
        assertThat(rated).as("one rate a shipped order").hasSize(n / 2);
        assertThat(wrongRates).isZero();
        assertThat(rate.pending()).isZero();
        assertThat(duplicates).isZero();
        assertThat(batches.get()).as("batches, fewer than records").isLessThan(n);
    }

    /** The moved service's handlers: they note each order once, its type and key checked against its id. */
    static final class Invoices {
        final Map<String, Integer> handled;
        final AtomicInteger typeErrors = new AtomicInteger();
        final AtomicInteger wrongKeys = new AtomicInteger();

        Invoices(Map<String, Integer> handled) {
            this.handled = handled;
        }

        void open(OrderPlaced order, long key) {
            note(order.order(), key, "-p");
        }

        void close(OrderShipped order, long key) {
            note(order.order(), key, "-s");
        }

        private void note(String order, long key, String suffix) {
            if (!order.endsWith(suffix)) {
                typeErrors.incrementAndGet();
            }
            if (Long.parseLong(order.substring(order.indexOf('#') + 1, order.lastIndexOf('-'))) != key) {
                wrongKeys.incrementAndGet();
            }
            handled.merge(order, 1, Integer::sum);
        }
    }

    private static void publish(Publisher<Object> orders, String phase, int n, String expectedInstance) throws Exception {
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Object p = payload(phase, i);
            sent.add(orders.publish(Message.builder(p).key(Long.toString(keyOf(p))).build()).toCompletableFuture());
        }
        for (CompletableFuture<PublishReceipt> f : sent) {
            assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo(expectedInstance);
        }
    }

    private static long count(Map<String, Integer> handled, String prefix) {
        return handled.keySet().stream().filter(o -> o.startsWith(prefix)).count();
    }

    private void report(String phase, int sent, NeighbourView neighbour, long neighbourGot, long neighbourExpected,
            Map<String, Integer> handled, long portedGot, long portedExpected, Invoices invoices) {
        long lost = Math.max(0, neighbourExpected - neighbourGot) + Math.max(0, portedExpected - portedGot);
        long duplicates = handled.values().stream().filter(c -> c > 1).count();
        int typeErrors = neighbour.typeErrors.get() + invoices.typeErrors.get() + (int) counter("switchboard.dead.letters");
        int wrongKeys = neighbour.wrongKey.get() + invoices.wrongKeys.get();
        System.out.printf("adopt=spring-kafka-orders broker=kafka phase=%s key_format=long type_ids=__TypeId__ sent=%d "
                + "neighbour_received=%d/%d ported_handled=%d/%d other_partition=%d wrong_keys=%d duplicates=%d lost=%d "
                + "type_errors=%d%n", phase, sent, neighbourGot, neighbourExpected, portedGot, portedExpected,
                neighbour.wrongPartition.get(), wrongKeys, duplicates, lost, typeErrors);
        assertThat(lost).isZero();
        assertThat(typeErrors).isZero();
        assertThat(wrongKeys).isZero();
        assertThat(duplicates).isZero();
        assertThat(neighbour.wrongPartition.get()).as("records off the partition LongSerializer's key would choose").isZero();
    }
}
