package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.KeyFormat;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.UUIDDeserializer;
import org.apache.kafka.common.serialization.UUIDSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Key formats against plain kafka-clients on the shared in-process broker: a Switchboard publisher's keys are the
 * bytes of kafka-clients' serializer of the format and land on the partition a plain producer with that serializer
 * picks; a plain producer's keys reach a Switchboard handler as their text; key bytes that do not fit the format do not
 * stop the subscription.
 */
@DisplayName("Key formats with plain kafka-clients neighbours")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaKeyFormatTest {

    private static final int PARTITIONS = 6;

    private static Switchboard switchboard;
    private static Admin admin;

    @BeforeAll
    static void start() {
        switchboard = KafkaTestSupport.switchboard("switchboard.partitions", Integer.toString(PARTITIONS));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestSupport.bootstrap()));
    }

    @AfterAll
    static void stop() {
        switchboard.close();
        admin.close();
    }

    @Test
    @DisplayName("long: 1,000 messages on 200 keys; a plain LongDeserializer consumer reads them all, each on the partition a "
            + "plain LongSerializer producer puts its key")
    void longKeysLandWhereAPlainProducerPutsThem() throws Exception {
        List<Long> keys = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            keys.add(i % 4 == 0 ? -i : i % 4 == 1 ? ThreadLocalRandom.current().nextLong() : i * 1_000_003L);
        }
        Outcome outcome = publishAndReadPlainly(KeyFormat.LONG, keys, 1_000, Object::toString,
                new LongSerializer(), new LongDeserializer());
        outcome.print("long");
        assertThat(outcome.received).isEqualTo(1_000);
        assertThat(outcome.samePartition).isEqualTo(1_000);
        assertThat(outcome.lost).isZero();
    }

    @Test
    @DisplayName("long: a plain LongSerializer producer's records reach the handler with Message.key() the decimal text")
    void plainLongKeysReachTheHandlerAsDecimalText() throws Exception {
        List<Long> keys = List.of(42L, -7L, 0L, Long.MAX_VALUE, Long.MIN_VALUE);
        assertThat(plainProducerToSubscription(KeyFormat.LONG, keys, Object::toString, new LongSerializer()))
                .isEqualTo(keys.size());
    }

    @Test
    @DisplayName("integer, uuid and bytes: both ways with IntegerSerializer, UUIDSerializer and ByteArraySerializer")
    void integerUuidAndBytesBothWays() throws Exception {
        bothWays(KeyFormat.INTEGER, List.of(42, -7, 0, Integer.MAX_VALUE, Integer.MIN_VALUE, 1_000_000), 60,
                Object::toString, new IntegerSerializer(), new IntegerDeserializer());
        List<UUID> uuids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            uuids.add(UUID.randomUUID());
        }
        bothWays(KeyFormat.UUID, uuids, 60, UUID::toString, new UUIDSerializer(), new UUIDDeserializer());
        bothWays(KeyFormat.BYTES, List.of(new byte[] {0, 1, 2}, new byte[] {(byte) 0xFF}, new byte[] {42, 42, 42, 42, 42}),
                30, b -> java.util.Base64.getEncoder().encodeToString(b), new ByteArraySerializer(),
                new ByteArrayDeserializer());
    }

    /** Switchboard to a plain consumer ({@code count} messages over {@code keys}) and a plain producer to Switchboard. */
    private <K> void bothWays(KeyFormat format, List<K> keys, int count, Function<K, String> text, Serializer<K> serializer,
            Deserializer<K> deserializer) throws Exception {
        Outcome outcome = publishAndReadPlainly(format, keys, count, text, serializer, deserializer);
        outcome.print(format.id());
        assertThat(outcome.samePartition).isEqualTo(count);
        assertThat(plainProducerToSubscription(format, keys, text, serializer)).isEqualTo(keys.size());
    }

    @Test
    @DisplayName("long: a record whose key is 3 bytes does not stop the subscription; its key reads as base64: text, and "
            + "its dead letter carries the same 3 bytes")
    void malformedKeyDoesNotStopTheSubscription() throws Exception {
        String topic = topic("bad-key");
        Recorder<String> recorder = new Recorder<>(TIMEOUT, r -> r.message().payload().startsWith("fail"));
        Subscription subscription = switchboard.subscriber(topic, Codec.utf8()).group("g")
                .property(KeyFormat.PROPERTY, "long").retry(RetryPolicy.fixed(1, Duration.ofMillis(10)))
                .subscribe(recorder);
        subscription.ready().toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

        byte[] threeBytes = {1, 2, 3};
        try (KafkaProducer<byte[], String> plain = producer(new ByteArraySerializer())) {
            plain.send(new ProducerRecord<>(topic, 0, threeBytes, "fail: malformed key")).get();
            plain.send(new ProducerRecord<>(topic, 0, new LongSerializer().serialize(topic, 42L), "after")).get();
        }
        List<Received<String>> received = recorder.awaitCount(1).received();
        assertThat(received).singleElement().satisfies(r -> {
            assertThat(r.message().payload()).isEqualTo("after");
            assertThat(r.message().key()).isEqualTo("42");
        });
        assertThat(recorder.attempts()).extracting(r -> r.message().key()).contains("base64:AQID");

        String deadLetter = switchboard.capabilities().deadLetterDestination(topic);
        List<ConsumerRecord<byte[], byte[]>> dead = readUntil(deadLetter, new ByteArrayDeserializer(), new ByteArrayDeserializer(), 1);
        assertThat(dead).singleElement().satisfies(r -> assertThat(r.key()).isEqualTo(threeBytes));
        subscription.close();
        System.out.println("adopt=kafka-keys broker=kafka format=long malformed_sent=1 good_sent=1 handled="
                + recorder.attempts().size() + " delivered_after=" + received.size() + " dead_letter_key_same_bytes="
                + java.util.Arrays.equals(dead.get(0).key(), threeBytes) + " stopped=false");
    }

    /** A Switchboard publisher of {@code format} sends {@code count} messages over {@code keys}; a plain consumer reads them. */
    private <K> Outcome publishAndReadPlainly(KeyFormat format, List<K> keys, int count, Function<K, String> text,
            Serializer<K> serializer, Deserializer<K> deserializer) throws Exception {
        String topic = topic("sb-" + format.id());
        String plainTopic = topic("plain-" + format.id());
        Publisher<String> publisher = switchboard.publisher(topic, Codec.utf8()).property(KeyFormat.PROPERTY, format.id())
                .build();
        List<CompletableFuture<PublishReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            K key = keys.get(i % keys.size());
            receipts.add(publisher.publish(Message.builder("m-" + i).key(text.apply(key)).build()).toCompletableFuture());
        }
        CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

        // the same keys from a plain producer with the format's serializer: where it puts each key
        Map<String, Integer> plainPartition = new HashMap<>();
        try (KafkaProducer<K, String> plain = producer(serializer)) {
            for (K key : keys) {
                RecordMetadata written = plain.send(new ProducerRecord<>(plainTopic, key, "plain")).get();
                plainPartition.put(text.apply(key), written.partition());
            }
        }

        List<ConsumerRecord<K, String>> read = readUntil(topic, deserializer, new StringDeserializer(), count);
        Outcome outcome = new Outcome(count);
        for (ConsumerRecord<K, String> record : read) {
            String key = text.apply(record.key());
            int formula = Utils.toPositive(Utils.murmur2(serializer.serialize(topic, record.key()))) % PARTITIONS;
            int index = Integer.parseInt(record.value().substring(2));
            boolean keyAsSent = key.equals(text.apply(keys.get(index % keys.size())));
            if (keyAsSent) {
                outcome.received++;
            }
            if (keyAsSent && record.partition() == formula && record.partition() == plainPartition.get(key)
                    && receipts.get(index).get().partition() == record.partition()) {
                outcome.samePartition++;
            }
        }
        outcome.lost = count - read.size();
        return outcome;
    }

    /** A plain producer with {@code serializer} sends one record a key; a Switchboard subscription of {@code format} reads them. */
    private <K> int plainProducerToSubscription(KeyFormat format, List<K> keys, Function<K, String> text,
            Serializer<K> serializer) throws Exception {
        String topic = topic("to-sb-" + format.id());
        Recorder<String> recorder = new Recorder<>(TIMEOUT);
        Subscription subscription = switchboard.subscriber(topic, Codec.utf8()).group("g")
                .property(KeyFormat.PROPERTY, format.id()).subscribe(recorder);
        subscription.ready().toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, String> sent = new HashMap<>();
        try (KafkaProducer<K, String> plain = producer(serializer)) {
            for (int i = 0; i < keys.size(); i++) {
                plain.send(new ProducerRecord<>(topic, keys.get(i), "p-" + i)).get();
                sent.put("p-" + i, text.apply(keys.get(i)));
            }
        }
        List<Received<String>> received = recorder.awaitCount(keys.size()).received();
        int equal = 0;
        for (Received<String> r : received) {
            if (sent.get(r.message().payload()).equals(r.message().key())) {
                equal++;
            }
        }
        subscription.close();
        System.out.println("adopt=kafka-keys broker=kafka format=" + format.id() + " direction=plain-to-switchboard sent="
                + keys.size() + " received=" + received.size() + " key_text_equal=" + equal + " lost="
                + (keys.size() - received.size()));
        return equal;
    }

    private static String topic(String hint) throws Exception {
        String topic = KafkaTestSupport.topic(hint);
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return topic;
    }

    private static <K> KafkaProducer<K, String> producer(Serializer<K> keys) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestSupport.bootstrap()), keys,
                new StringSerializer());
    }

    /** Reads the topic from the beginning without a group until {@code expected} records came, or the timeout. */
    private static <K, V> List<ConsumerRecord<K, V>> readUntil(String topic, Deserializer<K> keys, Deserializer<V> values,
            int expected) {
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                KafkaTestSupport.bootstrap()), keys, values)) {
            List<TopicPartition> all = new ArrayList<>();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (all.isEmpty() && System.nanoTime() < deadline) {
                consumer.partitionsFor(topic).forEach(p -> all.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    private static final class Outcome {
        final int sent;
        int received;
        int samePartition;
        int lost;

        Outcome(int sent) {
            this.sent = sent;
        }

        void print(String format) {
            System.out.println("adopt=kafka-keys broker=kafka format=" + format + " sent=" + sent + " received=" + received
                    + " same_partition=" + samePartition + " lost=" + lost);
        }
    }
}
