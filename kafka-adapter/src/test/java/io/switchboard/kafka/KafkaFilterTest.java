package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Recorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Tag filtering in the Kafka consumer: what is dropped never reaches the handler and never holds commits back. */
@DisplayName("Kafka tag filtering")
class KafkaFilterTest {

    @ParameterizedTest
    @EnumSource(value = Delivery.class, names = {"AT_LEAST_ONCE", "AT_MOST_ONCE"})
    @DisplayName("hands over only the tags asked for, and commits past the dropped records, the last ones included")
    void filtersAndCommits(Delivery delivery) throws Exception {
        String topic = KafkaTestSupport.topic("filter");
        int perTag = 30;
        try (Switchboard sb = KafkaTestSupport.switchboard()) {
            sb.provisioning().ensureDestination(DestinationSpec.of(topic, 2));
            Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(delivery).build();
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (int i = 0; i < perTag; i++) {
                sent.add(publisher.publish(Message.builder("paid-" + i).key("k" + i % 5).tag("paid").build()).toCompletableFuture());
                sent.add(publisher.publish(Message.builder("shipped-" + i).key("k" + i % 5).tag("shipped").build()).toCompletableFuture());
                sent.add(publisher.publish(Message.builder("cancelled-" + i).key("k" + i % 5).tag("cancelled").build()).toCompletableFuture());
                sent.add(publisher.publish(Message.builder("untagged-" + i).key("k" + i % 5).build()).toCompletableFuture());
            }
            for (int i = 0; i < 10; i++) { // trailing records that are all dropped
                sent.add(publisher.publish(Message.builder("tail-" + i).key("k" + i % 5).tag("cancelled").build()).toCompletableFuture());
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get();

            Recorder<String> recorder = new Recorder<>(KafkaTestSupport.TIMEOUT);
            sb.subscriber(topic, Codec.utf8()).group("billing").delivery(delivery).filter("paid || shipped")
                    .subscribe(recorder);
            recorder.awaitCount(2 * perTag);

            try (KafkaAdapter admin = new KafkaAdapter(new BrokerConfig("admin", "kafka",
                    Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap())))) {
                await().atMost(KafkaTestSupport.TIMEOUT).untilAsserted(() -> assertThat(admin.lag(topic, "billing"))
                        .as("lag per partition").hasSize(2).allSatisfy((p, lag) -> assertThat(lag).isZero()));
            }
            assertThat(recorder.payloads()).hasSize(2 * perTag)
                    .allMatch(p -> p.startsWith("paid-") || p.startsWith("shipped-"));
            System.out.println("capability=filter broker=kafka delivery=" + delivery + " sent=" + sent.size()
                    + " received=" + recorder.payloads().size() + " expected=" + 2 * perTag + " lag=0");
        }
    }
}
