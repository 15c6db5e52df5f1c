package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.cloudevents.kafka.CloudEventSerializer;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Interoperability with the official CloudEvents Java SDK's Kafka binding ({@code cloudevents-kafka},
 * JSON format from {@code cloudevents-json-jackson}): what Switchboard publishes by default is a
 * valid CloudEvent to the SDK's deserializer, and what the SDK's serializer writes, in binary and in
 * structured mode, reaches a Switchboard handler.
 */
class CloudEventsSdkTest {

    /** The budget for the default envelope's headers on Kafka, names and values. */
    private static final int LEAN_BUDGET = 120;

    private final Switchboard switchboard = KafkaTestSupport.switchboard();

    @AfterEach
    void close() {
        switchboard.close();
    }

    @Test
    @DisplayName("the SDK's CloudEventDeserializer reads a default-envelope message as a valid CloudEvent")
    void sdkReadsSwitchboardMessage() {
        String topic = KafkaTestSupport.topic("ce-sdk-read");
        Instant before = Instant.now().minusSeconds(1);
        PublishReceipt receipt = switchboard.publisher(topic, Codec.utf8()).build()
                .publish(Message.builder("{\"total\":42}").key("customer-7").header("ce_region", "eu-west").build())
                .toCompletableFuture().join();

        List<ConsumerRecord<String, CloudEvent>> records =
                KafkaTestSupport.readAll(topic, 4, true, CloudEventDeserializer.class);

        assertThat(records).singleElement().satisfies(record -> {
            CloudEvent event = record.value();
            assertThat(event.getSpecVersion().toString()).isEqualTo("1.0");
            assertThat(event.getId()).isEqualTo(receipt.messageId());
            assertThat(event.getSource()).isEqualTo(URI.create("switchboard"));
            assertThat(event.getType()).isEqualTo("message");
            assertThat(event.getDataContentType()).isEqualTo(Codec.utf8().contentType());
            assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"total\":42}");
            assertThat(event.getExtension("region")).isEqualTo("eu-west");
            assertThat(event.getSubject()).as("the key travels as the record key, not as subject").isNull();
            assertThat(record.key()).isEqualTo("customer-7");
            assertThat(event.getTime()).as("the time travels as the record's CreateTime").isNull();
            assertThat(Instant.ofEpochMilli(record.timestamp())).isBetween(before, Instant.now().plusSeconds(1));
        });
    }

    @Test
    @DisplayName("with cloudevents-full the SDK also reads subject and time; the default's headers fit in 120 bytes")
    void fullEnvelopeAndHeaderBytes() {
        String topic = KafkaTestSupport.topic("ce-sdk-bytes");
        Instant at = Instant.parse("2026-03-04T05:06:07.123456Z");
        try (Switchboard full = KafkaTestSupport.switchboard("switchboard.envelope", "cloudevents-full")) {
            full.publisher(topic, Codec.utf8()).build().publish(Message.builder("full").key("customer-7").timestamp(at).build())
                    .toCompletableFuture().join();
        }
        switchboard.publisher(topic, Codec.utf8()).build().publish(Message.of("customer-7", "lean")).toCompletableFuture().join();
        switchboard.publisher(topic, Codec.bytes()).build().publish(Message.of("customer-7", new byte[] {1}))
                .toCompletableFuture().join();

        List<ConsumerRecord<String, CloudEvent>> records =
                KafkaTestSupport.readAll(topic, 4, true, CloudEventDeserializer.class);
        assertThat(records).hasSize(3);
        ConsumerRecord<String, CloudEvent> fullRecord = records.stream()
                .filter(r -> r.value().getSubject() != null).findFirst().orElseThrow();
        assertThat(fullRecord.value().getSubject()).isEqualTo("customer-7");
        assertThat(fullRecord.value().getTime()).isEqualTo(OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
        assertThat(fullRecord.value().getExtension("attempt")).isNotNull();
        int fullBytes = headerBytes(fullRecord);
        StringBuilder report = new StringBuilder("CloudEventsSdkTest: envelope header bytes on Kafka (names + values): ")
                .append("cloudevents-full (the default before) utf8 ").append(fullBytes);
        for (ConsumerRecord<String, CloudEvent> record : records) {
            if (record != fullRecord) {
                int lean = headerBytes(record);
                report.append(", default ").append(record.value().getDataContentType()).append(' ').append(lean);
                assertThat(lean).as("the default envelope of %s", record.value().getDataContentType())
                        .isLessThanOrEqualTo(LEAN_BUDGET).isLessThan(fullBytes);
                if (record.value().getData() != null && record.value().getData().toBytes().length == 1) {
                    // Codec.bytes(): no datacontenttype (optional in CloudEvents; application/octet-stream says nothing)
                    assertThat(record.value().getDataContentType()).isNull();
                    assertThat(lean).isEqualTo(78);
                }
            }
        }
        System.out.println(report);
    }

    @Test
    @DisplayName("a Switchboard handler gets an SDK binary-mode event's data, id, time and extensions")
    void switchboardReadsBinaryMode() throws Exception {
        String topic = KafkaTestSupport.topic("ce-sdk-binary");
        Recorder<String> recorder = subscribe(topic);
        OffsetDateTime time = OffsetDateTime.parse("2026-03-04T05:06:07.123456Z");
        CloudEvent event = CloudEventBuilder.v1().withId("sdk-1").withSource(URI.create("/billing")).withType("com.shop.billed")
                .withTime(time).withSubject("invoice-9").withExtension("region", "eu-west")
                .withData("text/plain", "billed".getBytes(StandardCharsets.UTF_8)).build();
        send(topic, "customer-3", event, Encoding.BINARY);

        Received<String> received = recorder.awaitCount(1).received().get(0);
        assertThat(received.message().payload()).isEqualTo("billed");
        assertThat(received.message().id()).isEqualTo("sdk-1");
        assertThat(received.message().timestamp()).isEqualTo(time.toInstant());
        assertThat(received.message().key()).isEqualTo("customer-3");
        assertThat(received.message().headers()).as("extensions only; the attributes are the envelope's")
                .containsExactly(java.util.Map.entry("ce_region", "eu-west"));
    }

    @Test
    @DisplayName("a Switchboard handler gets an SDK structured-mode event as its JSON, which the SDK's format reads back")
    void switchboardReadsStructuredModeAsJson() throws Exception {
        String topic = KafkaTestSupport.topic("ce-sdk-structured");
        Recorder<String> recorder = subscribe(topic);
        CloudEvent event = CloudEventBuilder.v1().withId("sdk-2").withSource(URI.create("/billing")).withType("com.shop.billed")
                .withExtension("region", "eu-west")
                .withData("application/json", "{\"total\":42}".getBytes(StandardCharsets.UTF_8)).build();
        send(topic, "customer-4", event, Encoding.STRUCTURED);

        Received<String> received = recorder.awaitCount(1).received().get(0);
        // documented: structured mode is not parsed; the handler gets the whole event as JSON, its id is the position
        assertThat(received.message().id()).isEqualTo(topic + "-" + received.context().partition() + "-"
                + received.context().offset());
        assertThat(received.message().key()).isEqualTo("customer-4");
        assertThat(received.message().headers()).isEmpty();
        CloudEvent read = new JsonFormat().deserialize(received.message().payload().getBytes(StandardCharsets.UTF_8));
        assertThat(read.getId()).isEqualTo("sdk-2");
        assertThat(read.getType()).isEqualTo("com.shop.billed");
        assertThat(read.getExtension("region")).isEqualTo("eu-west");
        assertThat(new String(read.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"total\":42}");
    }

    private Recorder<String> subscribe(String topic) throws Exception {
        Recorder<String> recorder = new Recorder<>(TIMEOUT);
        Subscription subscription = switchboard.subscriber(topic, Codec.utf8()).group("ce-reader").subscribe(recorder);
        subscription.ready().toCompletableFuture().get();
        return recorder;
    }

    private static void send(String topic, String key, CloudEvent event, Encoding encoding) throws Exception {
        try (KafkaProducer<String, CloudEvent> producer = KafkaTestSupport.plainProducer(CloudEventSerializer.class,
                CloudEventSerializer.ENCODING_CONFIG, encoding.name(),
                CloudEventSerializer.EVENT_FORMAT_CONFIG, JsonFormat.CONTENT_TYPE)) {
            producer.send(new ProducerRecord<>(topic, key, event)).get();
        }
    }

    /** The bytes of a record's headers, names and values, as Kafka stores them (before compression). */
    private static int headerBytes(ConsumerRecord<String, ?> record) {
        int bytes = 0;
        for (Header header : record.headers()) {
            bytes += header.key().getBytes(StandardCharsets.UTF_8).length + header.value().length;
        }
        return bytes;
    }
}
