package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Interoperation with plain kafka-clients")
class KafkaInteropTest {

    private final Switchboard switchboard = KafkaTestSupport.switchboard();

    @AfterEach
    void close() {
        switchboard.close();
    }

    @Test
    @DisplayName("a plain consumer reads what Switchboard published: payload, key, headers and the CloudEvents envelope")
    void plainConsumerReadsSwitchboardMessage() {
        String topic = KafkaTestSupport.topic("to-plain");
        Message<String> message = Message.builder("{\"total\":42}").key("customer-7").header("tenant", "acme")
                .header("ce_region", "eu-west").build();
        PublishReceipt receipt = switchboard.publisher(topic, Codec.utf8()).build().publish(message)
                .toCompletableFuture().join();

        List<ConsumerRecord<String, String>> records = KafkaTestSupport.readAll(topic, 4, true);

        assertThat(records).singleElement().satisfies(record -> {
            assertThat(record.value()).isEqualTo("{\"total\":42}");
            assertThat(record.key()).isEqualTo("customer-7");
            assertThat(record.partition()).isEqualTo(receipt.partition());
            assertThat(record.offset()).isEqualTo(receipt.offset());
            Map<String, String> headers = new HashMap<>();
            for (Header header : record.headers()) {
                headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
            }
            assertThat(headers)
                    .containsEntry("tenant", "acme")
                    .as("a CloudEvents extension, in the Kafka binding's form").containsEntry("ce_region", "eu-west")
                    .containsEntry(Envelope.ID, receipt.messageId())
                    .containsEntry(Envelope.SPEC_VERSION, "1.0")
                    .containsEntry(Envelope.CONTENT_TYPE, Codec.utf8().contentType())
                    .containsKeys(Envelope.SOURCE, Envelope.TYPE)
                    .as("the key is the record key, the time its CreateTime, no attempt on a first publish")
                    .doesNotContainKeys(Envelope.SUBJECT, Envelope.TIME, Envelope.ATTEMPT);
            assertThat(record.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
            assertThat(Instant.ofEpochMilli(record.timestamp())).isBeforeOrEqualTo(Instant.now());
        });
    }

    @Test
    @DisplayName("an instance the comparison judges writes ce_time in microseconds, the clock every broker's e2e then reads")
    void comparedInstanceWritesMicrosecondTime() {
        String topic = KafkaTestSupport.topic("compared");
        Instant before = Instant.now();
        try (Switchboard routed = Switchboard.builder()
                .instance("k", "kafka", Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap()))
                .instance("m", "memory", Map.of())
                .route(topic, io.switchboard.routing.Route.single("k"))
                .build()) {
            routed.publisher(topic, Codec.utf8()).build().publish(Message.of("timed")).toCompletableFuture().join();
        }

        List<ConsumerRecord<String, String>> records = KafkaTestSupport.readAll(topic, 4, true);

        assertThat(records).singleElement().satisfies(record -> {
            Header time = record.headers().lastHeader(Envelope.TIME);
            assertThat(time).as("ce_time on a compared instance's record").isNotNull();
            Instant sent = Envelope.parseTime(new String(time.value(), StandardCharsets.UTF_8));
            assertThat(sent).isBetween(before.minusSeconds(1), Instant.now());
            assertThat(sent.toEpochMilli()).as("the CreateTime is the same moment, in milliseconds")
                    .isBetween(record.timestamp() - 1000, record.timestamp() + 1000);
        });
    }

    @Test
    @DisplayName("Switchboard consumes a plain record without envelope: id from its position, time from its timestamp")
    void switchboardConsumesPlainRecord() throws Exception {
        String topic = KafkaTestSupport.topic("from-plain");
        Recorder<String> recorder = new Recorder<>(TIMEOUT);
        Subscription subscription = switchboard.subscriber(topic, Codec.utf8()).group("reader").subscribe(recorder);
        subscription.ready().toCompletableFuture().get();

        RecordMetadata written;
        long timestamp = Instant.parse("2024-05-01T10:15:30.123Z").toEpochMilli();
        try (KafkaProducer<String, String> producer = KafkaTestSupport.plainProducer()) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, null, timestamp, "plain-key", "plain value");
            record.headers().add("origin", "legacy".getBytes(StandardCharsets.UTF_8));
            // a CloudEvents extension another producer wrote (binary mode)
            record.headers().add("ce_tenant", "acme".getBytes(StandardCharsets.UTF_8));
            written = producer.send(record).get();
        }

        Received<String> received = recorder.awaitCount(1).received().get(0);
        assertThat(received.message().payload()).isEqualTo("plain value");
        assertThat(received.message().key()).isEqualTo("plain-key");
        assertThat(received.message().headers()).containsEntry("origin", "legacy").containsEntry("ce_tenant", "acme");
        assertThat(received.message().id()).isEqualTo(topic + "-" + written.partition() + "-" + written.offset());
        assertThat(received.message().timestamp()).isEqualTo(Instant.ofEpochMilli(timestamp));
        assertThat(received.context().partition()).isEqualTo(written.partition());
        assertThat(received.context().offset()).isEqualTo(written.offset());
        assertThat(recorder.attempts()).as("handled once, without error").hasSize(1);
    }
}
