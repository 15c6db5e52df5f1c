package io.switchboard.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("EmbeddedKafka")
class EmbeddedKafkaTest {

    @Test
    @DisplayName("a broker of its own round-trips a record, then stops, frees its port and deletes its directory")
    void ownBrokerRoundTripsAndCleansUp() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.builder().brokerProperty("num.partitions", "3").start();
        try {
            assertThat(kafka.directory()).isDirectory();
            roundTrip(kafka, "own-" + UUID.randomUUID());
        } finally {
            kafka.close();
        }
        kafka.close(); // idempotent

        assertThat(kafka.directory()).doesNotExist();
        assertThat(accepts(kafka.bootstrapServers())).as("broker port open after close").isFalse();
        assertThat(kafka).hasToString("EmbeddedKafka[" + kafka.bootstrapServers() + ", closed]");
    }

    @Test
    @DisplayName("a broker of its own stops and restarts on the same port and data, keeping its records")
    void ownBrokerRestartsWithItsData() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
            String topic = "restart-" + UUID.randomUUID();
            roundTrip(kafka, topic);

            kafka.stop();
            assertThat(kafka.isRunning()).isFalse();
            assertThat(accepts(kafka.bootstrapServers())).as("broker port open while stopped").isFalse();
            assertThat(kafka).hasToString("EmbeddedKafka[" + kafka.bootstrapServers() + ", stopped]");

            kafka.restart();
            assertThat(kafka.isRunning()).isTrue();
            assertThat(kafka.directory()).isDirectory();
            assertThat(readAll(kafka, topic)).containsExactly("hello");
        }
    }

    @Test
    @DisplayName("the shared broker cannot be stopped or restarted, since other tests use it")
    void sharedBrokerRefusesStopAndRestart() {
        assertThatThrownBy(() -> EmbeddedKafka.shared().stop())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shared");
        assertThatThrownBy(() -> EmbeddedKafka.shared().restart())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("EmbeddedKafka.builder()");
        assertThat(EmbeddedKafka.shared().isRunning()).isTrue();
    }

    @Test
    @DisplayName("the port options name a bad port")
    void portOptionsRejectBadPorts() {
        assertThatThrownBy(() -> EmbeddedKafka.builder().port(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 0");
        assertThatThrownBy(() -> EmbeddedKafka.builder().advertisedPort(70000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 70000");
    }

    @Test
    @DisplayName("the shared broker is one per JVM and survives close()")
    void sharedBrokerIsSingleAndSurvivesClose() throws Exception {
        EmbeddedKafka shared = EmbeddedKafka.shared();
        shared.close();

        assertThat(EmbeddedKafka.shared()).isSameAs(shared);
        String topic = "shared-" + UUID.randomUUID();
        shared.createTopic(topic, 2);
        shared.createTopic(topic, 2); // exists already: no error
        roundTrip(shared, topic);
    }

    @Test
    @DisplayName("createTopic names the bad partition count")
    void createTopicRejectsZeroPartitions() {
        assertThatThrownBy(() -> EmbeddedKafka.shared().createTopic("t", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 0")
                .hasMessageContaining("'t'");
    }

    private static void roundTrip(EmbeddedKafka kafka, String topic) throws Exception {
        Map<String, Object> producerConfig = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, "key-1", "hello");
            record.headers().add("h", "v".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }

        Map<String, Object> consumerConfig = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "group-" + topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
            consumer.subscribe(List.of(topic));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(received::add);
                return !received.isEmpty();
            });
        }
        assertThat(received).singleElement().satisfies(record -> {
            assertThat(record.key()).isEqualTo("key-1");
            assertThat(record.value()).isEqualTo("hello");
            assertThat(new String(record.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo("v");
        });
    }

    /** The values of every record of the topic's first partition, read without a group. */
    private static List<String> readAll(EmbeddedKafka kafka, String topic) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> values.add(record.value()));
                return consumer.position(partition) >= end;
            });
        }
        return values;
    }

    private static boolean accepts(String hostAndPort) {
        String[] parts = hostAndPort.split(":");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(parts[0], Integer.parseInt(parts[1])), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
