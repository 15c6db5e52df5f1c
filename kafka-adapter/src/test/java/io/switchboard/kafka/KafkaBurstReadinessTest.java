package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A burst of subscriptions to topics that do not exist yet: core starts them as soon as their topics are created, while
 * the broker is still bringing the partitions online, so {@code ready()} must wait until each subscription really reads
 * its topic. Subscriptions that start from the latest offset (broadcast ones, and group ones told to) lose what is
 * published between a premature {@code ready()} and their partitions' start positions; here nothing may be lost.
 */
@DisplayName("A burst of Kafka subscriptions on new topics: ready() only once each reads its topic")
class KafkaBurstReadinessTest {

    @Test
    @DisplayName("broadcast and latest-offset group subscriptions made in a loop each get what is published right after ready()")
    void readyMeansReading() throws Exception {
        String run = KafkaTestSupport.topic("burst");
        try (Switchboard sb = KafkaTestSupport.switchboard()) {
            // the instance's first provisioning runs on the caller's thread; what follows goes through the rounds
            sb.publisher(run + "-first", Codec.utf8()).build().close();
            Map<String, Set<String>> received = new ConcurrentHashMap<>();
            List<CompletableFuture<Void>> ready = new ArrayList<>();
            List<String> topics = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                String topic = run + "-" + i;
                topics.add(topic);
                Set<String> mine = ConcurrentHashMap.newKeySet();
                received.put(topic, mine);
                SubscriberBuilder<String> builder = sb.subscriber(topic, Codec.utf8());
                if (i % 2 == 0) {
                    builder.broadcast();
                } else {
                    builder.group(run + "-group").property("kafka.consumer.auto.offset.reset", "latest");
                }
                Subscription subscription = builder.subscribe((message, context) -> mine.add(message.payload()));
                ready.add(subscription.ready().toCompletableFuture());
            }
            CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new))
                    .get(KafkaTestSupport.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            for (String topic : topics) {
                sb.publisher(topic, Codec.utf8()).build().publish("right after ready: " + topic).toCompletableFuture()
                        .get(KafkaTestSupport.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            Awaitility.await("each subscription's message").atMost(KafkaTestSupport.TIMEOUT)
                    .untilAsserted(() -> assertThat(received).allSatisfy((topic, got) ->
                            assertThat(got).as(topic).containsExactly("right after ready: " + topic)));
        }
    }
}
