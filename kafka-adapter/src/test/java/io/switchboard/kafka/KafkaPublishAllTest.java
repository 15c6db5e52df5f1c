package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.PublishException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** An exactly-once publisher's publishAll is one Kafka transaction: all of it visible, or none. */
@DisplayName("Kafka publishAll, exactly-once")
class KafkaPublishAllTest {

    @Test
    @DisplayName("commits a call's records in one transaction of their own: consecutive offsets on one partition")
    void oneTransaction() {
        String topic = KafkaTestSupport.topic("all-tx");
        createTopic(topic, Map.of());
        try (Switchboard sb = KafkaTestSupport.switchboard()) {
            Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.EXACTLY_ONCE).build();
            List<Message<String>> batch = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                batch.add(Message.of("k", "m-" + i));
            }
            // another record published at the same time goes in a transaction of its own, never inside the call's
            CompletableFuture<PublishReceipt> alone = publisher.publish("alone").toCompletableFuture();
            List<PublishReceipt> receipts = publisher.publishAll(batch).toCompletableFuture().orTimeout(60, TimeUnit.SECONDS)
                    .join();
            alone.orTimeout(60, TimeUnit.SECONDS).join();

            long first = receipts.get(0).offset();
            for (int i = 0; i < receipts.size(); i++) {
                assertThat(receipts.get(i).partition()).isZero();
                assertThat(receipts.get(i).offset()).as("offset of record " + i + " (no commit marker between)")
                        .isEqualTo(first + i);
            }
            assertThat(KafkaTestSupport.values(topic, 1, true)).hasSize(31).contains("alone").containsSubsequence(
                    batch.stream().map(Message::payload).toList());
        }
    }

    @Test
    @DisplayName("makes none of a call's records visible when the broker refuses one of them")
    void allOrNone() {
        String topic = KafkaTestSupport.topic("all-none");
        createTopic(topic, Map.of("max.message.bytes", "4096"));
        try (Switchboard sb = KafkaTestSupport.switchboard()) {
            Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.EXACTLY_ONCE).build();
            List<Message<String>> batch = List.of(Message.of("first"), Message.of("y".repeat(16 * 1024)),
                    Message.of("last"));

            CompletableFuture<List<PublishReceipt>> all = publisher.publishAll(batch).toCompletableFuture();

            Throwable failure = null;
            try {
                all.orTimeout(60, TimeUnit.SECONDS).join();
            } catch (CompletionException e) {
                failure = e.getCause();
            }
            assertThat(failure).as("the call's outcome").isInstanceOf(PublishException.class)
                    .hasMessageContaining("transaction").hasMessageContaining(topic);
            publisher.publishAll(List.of(Message.of("after"))).toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join();
            assertThat(KafkaTestSupport.values(topic, 1, true)).as("read_committed records").containsExactly("after");
        }
    }

    private static void createTopic(String topic, Map<String, String> config) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestSupport.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(config))).all()
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Could not create topic " + topic, e);
        }
    }
}
