package io.switchboard.kafka;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract again with {@code kafka.share-consumer=false}: a consumer and a poll thread per subscription.
 * Tagged {@code extended} (left out of .ci/run for its time, 90 s): a dedicated consumer is the same {@code GroupConsumer}
 * with one attachment, which the main contract's broadcast subscriptions run; run it with -Dsurefire.excludedGroups=none.
 */
@Tag("extended")
@DisplayName("The Kafka adapter with a consumer per subscription (kafka.share-consumer=false)")
class KafkaDedicatedConsumersContractTest extends KafkaContractTest {

    @Override
    protected Map<String, String> brokerProperties() {
        return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers(), "kafka.share-consumer", "false");
    }
}
