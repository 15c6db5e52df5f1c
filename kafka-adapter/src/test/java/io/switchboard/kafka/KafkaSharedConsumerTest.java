package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.testkit.CollectingListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Kafka subscriptions of one group share one consumer")
class KafkaSharedConsumerTest {

    private static final Duration HOLDS_FOR = Duration.ofMillis(700);
    private static final String INSTANCE = "shared";

    private final KafkaAdapter adapter = new KafkaAdapter(new BrokerConfig(INSTANCE, "kafka",
            Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap())));
    private final List<RawConsumer> consumers = new ArrayList<>();

    @AfterEach
    void close() {
        adapter.close();
    }

    @Test
    @DisplayName("50 subscriptions of distinct topics in one group: one poll thread, one heartbeat thread, each its own records, none left after close")
    void fiftySubscriptionsOneClient() {
        String group = "fifty-" + System.nanoTime();
        Predicate<String> ours = name -> name.startsWith("switchboard-kafka[" + INSTANCE + "]-")
                || name.equals("kafka-coordinator-heartbeat-thread | " + group);
        int before = count(ours);
        List<String> topics = new ArrayList<>();
        List<List<InboundRecord>> received = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String topic = topic("fifty");
            topics.add(topic);
            List<InboundRecord> delivered = new CopyOnWriteArrayList<>();
            received.add(delivered);
            RawConsumer consumer = adapter.createConsumer(spec(topic, group, 10, Map.of()));
            assertThat(consumer.handleOnDeliveryThreads(2)).as("a shared consumer runs handlers off its poll thread").isTrue();
            consumers.add(consumer);
        }
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ready.add(consumers.get(i).start(new CollectingListener(received.get(i))).toCompletableFuture());
        }
        CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).orTimeout(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();

        assertThat(count(name -> name.startsWith("switchboard-kafka[" + INSTANCE + "]-group-"))).as("poll threads").isEqualTo(1);
        assertThat(count(name -> name.equals("kafka-coordinator-heartbeat-thread | " + group))).as("heartbeat threads").isEqualTo(1);

        try (KafkaProducer<String, String> producer = KafkaTestSupport.plainProducer()) {
            for (String topic : topics) {
                for (int m = 0; m < 3; m++) {
                    producer.send(new ProducerRecord<>(topic, "k", topic + "#" + m));
                }
            }
        }
        for (int i = 0; i < 50; i++) {
            List<InboundRecord> delivered = received.get(i);
            String topic = topics.get(i);
            await().atMost(TIMEOUT).until(() -> delivered.size() >= 3);
            assertThat(delivered).extracting(InboundRecord::destination).containsOnly(topic);
            assertThat(delivered).extracting(r -> new String(r.payload()))
                    .containsExactly(topic + "#0", topic + "#1", topic + "#2");
            delivered.forEach(InboundRecord::ack);
        }
        assertThat(count(ours) - before).as("threads of the instance and the group, busy delivery threads included")
                .isLessThanOrEqualTo(2 + 50 * 2);

        consumers.get(0).close();
        assertThat(count(name -> name.startsWith("switchboard-kafka[" + INSTANCE + "]-group-"))).isEqualTo(1);
        try (KafkaProducer<String, String> producer = KafkaTestSupport.plainProducer()) {
            producer.send(new ProducerRecord<>(topics.get(1), "k", "after"));
        }
        await().atMost(TIMEOUT).until(() -> received.get(1).size() == 4);
        received.get(1).forEach(InboundRecord::ack);

        for (RawConsumer consumer : consumers) {
            consumer.close();
        }
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(count(ours)).as("threads once all closed").isLessThanOrEqualTo(before));
        for (String topic : topics.subList(1, 50)) {
            assertThat(adapter.lag(topic, group)).as("committed on close: " + topic).containsEntry(0, 0L);
        }
    }

    @Test
    @DisplayName("back-pressure, nack and stop stay per subscription")
    void perSubscription() {
        String group = "per-" + System.nanoTime();
        String a = topic("held");
        String b = topic("flowing");
        List<InboundRecord> heldRecords = new CopyOnWriteArrayList<>();
        List<InboundRecord> flowing = new CopyOnWriteArrayList<>();
        RawConsumer held = start(spec(a, group, 5, Map.of()), heldRecords);
        RawConsumer other = start(spec(b, group, 5, Map.of()), flowing);
        publish(a, 20);
        publish(b, 20);

        await().atMost(TIMEOUT).during(HOLDS_FOR).until(() -> heldRecords.size() == 5);
        while (flowing.size() < 20) {
            int handed = flowing.size();
            flowing.forEach(InboundRecord::ack);
            await().atMost(TIMEOUT).until(() -> flowing.size() > handed || flowing.size() == 20);
        }
        flowing.forEach(InboundRecord::ack);
        assertThat(heldRecords).as("the held subscription is still at its maxInFlight").hasSize(5);

        heldRecords.get(0).nack();
        await().atMost(TIMEOUT).until(() -> heldRecords.size() == 6);
        assertThat(heldRecords.get(5).offset()).isZero();
        assertThat(heldRecords.get(5).deliveryCount()).isEqualTo(2);
        assertThat(flowing).as("a nack elsewhere rewinds nothing here").hasSize(20);

        other.stop();
        publish(b, 3);
        heldRecords.forEach(InboundRecord::ack);
        await().atMost(TIMEOUT).until(() -> heldRecords.size() >= 11);
        assertThat(flowing).as("stopped").hasSize(20);
        held.close();
        other.close();
    }

    @Test
    @DisplayName("the same topic twice in a group takes two clients (members compete); kafka.share-consumer=false takes its own")
    void slotsAndEscapeHatch() {
        String group = "slots-" + System.nanoTime();
        String[] topics = {topic("twice"), topic("own")};
        List<List<InboundRecord>> got = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                new CopyOnWriteArrayList<>());
        start(spec(topics[0], group, 100, Map.of()), got.get(0));
        start(spec(topics[0], group, 100, Map.of()), got.get(1));
        start(spec(topics[1], group, 100, Map.of("kafka.share-consumer", "false")), got.get(2));

        assertThat(count(name -> name.startsWith("switchboard-kafka[" + INSTANCE + "]-group-" + group))).isEqualTo(2);
        assertThat(count(name -> name.equals("switchboard-kafka[" + INSTANCE + "]-" + topics[1] + "-" + group))).isEqualTo(1);
        publish(topics[0], 10);
        publish(topics[1], 2);
        await().atMost(TIMEOUT).until(() -> got.get(0).size() + got.get(1).size() == 10 && got.get(2).size() == 2);
        consumers.forEach(RawConsumer::close);
        await().atMost(TIMEOUT).until(() -> count(name -> name.startsWith("switchboard-kafka[" + INSTANCE + "]-")
                && !name.contains("-deliver-")) == 0);
    }

    @Test
    @DisplayName("with an eager assignor, a subscription attaching lets the others' records in flight settle first: no duplicate")
    void eagerRebalanceDrainsInFlight() {
        String group = "eager-" + System.nanoTime();
        Map<String, String> eager = Map.of("kafka.partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.RangeAssignor");
        String a = topic("eager-a");
        String b = topic("eager-b");
        List<InboundRecord> first = new CopyOnWriteArrayList<>();
        start(spec(a, group, 5, eager), first);
        publish(a, 10);
        await().atMost(TIMEOUT).until(() -> first.size() == 5);

        RawConsumer joining = adapter.createConsumer(spec(b, group, 5, eager));
        consumers.add(joining);
        CompletableFuture<Void> ready = joining.start(new CollectingListener(new CopyOnWriteArrayList<>())).toCompletableFuture();
        // the handler keeps settling what it is handed (records 5-9 may come before the revocation, which then waits
        // for them): acking only after ready would hold them past kafka.revoke-drain-timeout, and they would come again
        await("the joining subscription ready, the first one's records settled meanwhile").atMost(Duration.ofSeconds(60))
                .until(() -> {
                    first.forEach(InboundRecord::ack);
                    return ready.isDone();
                });
        ready.join();
        while (first.size() < 10) {
            int handed = first.size();
            first.forEach(InboundRecord::ack);
            await().atMost(TIMEOUT).until(() -> first.size() > handed);
        }
        first.forEach(InboundRecord::ack);
        assertThat(first).extracting(InboundRecord::offset).as("each offset once").doesNotHaveDuplicates().hasSize(10);
    }

    @Test
    @DisplayName("a shared consumer's only subscription is handled on the poll thread; once a second joins, both on delivery threads, each partition in order")
    void aloneOnThePollThread() {
        String group = "alone-" + System.nanoTime();
        String a = topic("alone-a");
        List<String> threadsA = new CopyOnWriteArrayList<>();
        List<InboundRecord> gotA = new CopyOnWriteArrayList<>();
        startWithQueue(a, group, gotA, threadsA);
        publish(a, 5);
        await().atMost(TIMEOUT).until(() -> gotA.size() == 5);
        String pollThread = "switchboard-kafka[" + INSTANCE + "]-group-" + group + "-";
        assertThat(threadsA).as("alone: the poll thread runs the handler").allMatch(name -> name.startsWith(pollThread));

        String b = topic("alone-b");
        List<String> threadsB = new CopyOnWriteArrayList<>();
        List<InboundRecord> gotB = new CopyOnWriteArrayList<>();
        startWithQueue(b, group, gotB, threadsB);
        publish(a, 5);
        publish(b, 5);
        await().atMost(TIMEOUT).until(() -> gotA.size() == 10 && gotB.size() == 5);
        String deliver = "switchboard-kafka[" + INSTANCE + "]-deliver-";
        assertThat(threadsA.subList(5, 10)).as("shared: delivery threads").allMatch(name -> name.startsWith(deliver));
        assertThat(threadsB).as("shared: delivery threads").allMatch(name -> name.startsWith(deliver));
        assertThat(gotA).extracting(InboundRecord::offset).as("one partition, in order across the switch")
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    }

    @Test
    @DisplayName("a subscription started before its topic exists is ready only once the topic is created and read from its start positions")
    void readyWaitsForItsTopic() {
        String group = "later-" + System.nanoTime();
        Map<String, String> properties = Map.of("kafka.consumer.allow.auto.create.topics", "false",
                "kafka.consumer.auto.offset.reset", "latest");
        start(spec(topic("other"), group, 10, properties), new CopyOnWriteArrayList<>()); // the shared consumer runs already
        String later = KafkaTestSupport.topic("later");
        List<InboundRecord> delivered = new CopyOnWriteArrayList<>();
        RawConsumer consumer = adapter.createConsumer(spec(later, group, 10, properties));
        consumers.add(consumer);
        assertThat(consumer.handleOnDeliveryThreads(1)).isTrue();
        CompletableFuture<Void> ready = consumer.start(new CollectingListener(delivered)).toCompletableFuture();
        await("readiness while the topic does not exist").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> !ready.isDone());
        adapter.provisioner().ensureDestination(DestinationSpec.of(later, 2));
        assertThat(ready).succeedsWithin(TIMEOUT);
        publish(later, 4); // reading from the latest offset: what is published after ready() is read, nothing before
        await().atMost(TIMEOUT).until(() -> delivered.size() == 4);
    }

    /** Starts a subscription as core does for concurrency 1 (one serial queue), recording each record's thread. */
    private void startWithQueue(String topic, String group, List<InboundRecord> records, List<String> threads) {
        RawConsumer consumer = adapter.createConsumer(spec(topic, group, 100, Map.of()));
        assertThat(consumer.handleOnDeliveryThreads(1)).as("a shared consumer runs handlers on its delivery pool").isTrue();
        consumers.add(consumer);
        consumer.start(threadRecording(records, threads)).toCompletableFuture()
                .orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
    }

    /** Collects and acks each record, noting the thread that handed it over. */
    private static io.switchboard.spi.RecordListener threadRecording(List<InboundRecord> records, List<String> threads) {
        return new io.switchboard.spi.RecordListener() {
            @Override
            public void onRecord(InboundRecord record) {
                threads.add(Thread.currentThread().getName());
                records.add(record);
                record.ack();
            }

            @Override
            public void onFailure(Throwable error) {
                throw new AssertionError("consumer failed", error);
            }
        };
    }

    private RawConsumer start(ConsumerSpec spec, List<InboundRecord> delivered) {
        RawConsumer consumer = adapter.createConsumer(spec);
        consumers.add(consumer);
        consumer.start(new CollectingListener(delivered)).toCompletableFuture().orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
        return consumer;
    }

    private String topic(String hint) {
        String topic = KafkaTestSupport.topic(hint);
        adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 1));
        return topic;
    }

    private static ConsumerSpec spec(String topic, String group, int maxInFlight, Map<String, String> properties) {
        return new ConsumerSpec(topic, group, false, Delivery.AT_LEAST_ONCE, maxInFlight, null, properties);
    }

    private static void publish(String topic, int count) {
        try (KafkaProducer<String, String> producer = KafkaTestSupport.plainProducer()) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k", "m" + i));
            }
        }
    }

    private static int count(Predicate<String> names) {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName).filter(names).count();
    }
}
