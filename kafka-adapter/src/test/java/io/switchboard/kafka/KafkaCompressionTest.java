package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Recorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("Compression set through kafka.compression.type")
class KafkaCompressionTest {

    private static final int MESSAGES = 200;
    private static final int PAYLOAD_CHARS = 10_000;

    private final Switchboard switchboard = KafkaTestSupport.switchboard();

    @AfterEach
    void close() {
        switchboard.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"snappy", "lz4", "zstd"})
    @DisplayName("round-trips messages intact and stores them compressed")
    void roundTrip(String compression) throws Exception {
        String topic = KafkaTestSupport.topic(compression);
        switchboard.provisioning().ensureDestination(DestinationSpec.of(topic, 1));
        Recorder<String> recorder = new Recorder<>(TIMEOUT);
        switchboard.subscriber(topic, Codec.utf8()).group("g").subscribe(recorder).ready().toCompletableFuture().get();

        Publisher<String> publisher = switchboard.publisher(topic, Codec.utf8())
                .property("kafka.compression.type", compression)
                .property("kafka.linger.ms", "20")
                .build();
        List<String> sent = IntStream.range(0, MESSAGES).mapToObj(KafkaCompressionTest::payload).toList();
        List<CompletableFuture<PublishReceipt>> receipts = new ArrayList<>();
        sent.forEach(p -> receipts.add(publisher.publish(Message.of(p)).toCompletableFuture()));
        CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get();

        assertThat(recorder.awaitCount(MESSAGES).payloads()).containsExactlyElementsOf(sent);
        long rawBytes = (long) MESSAGES * PAYLOAD_CHARS;
        assertThat(storedBytes(topic)).as("bytes on the broker's disk for %d bytes of payload", rawBytes)
                .isPositive().isLessThan(rawBytes / 4);
    }

    /** Highly compressible text, different per message. */
    private static String payload(int i) {
        String sentence = "message " + i + " of a compression round trip; ";
        return sentence.repeat(PAYLOAD_CHARS / sentence.length() + 1).substring(0, PAYLOAD_CHARS);
    }

    private static long storedBytes(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestSupport.bootstrap()))) {
            int broker = admin.describeCluster().nodes().get().iterator().next().id();
            Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(broker)).allDescriptions().get().get(broker);
            return dirs.values().stream()
                    .mapToLong(dir -> dir.replicaInfos().entrySet().stream()
                            .filter(e -> e.getKey().equals(new TopicPartition(topic, 0)))
                            .mapToLong(e -> e.getValue().size()).sum())
                    .sum();
        }
    }
}
