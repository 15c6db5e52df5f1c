package io.switchboard.kafka;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/** The whole contract again with {@code kafka.share-consumer=false}: a consumer and a poll thread per subscription. */
@DisplayName("The Kafka adapter with a consumer per subscription (kafka.share-consumer=false)")
class KafkaDedicatedConsumersContractTest extends KafkaContractTest {

    @Override
    protected Map<String, String> brokerProperties() {
        return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers(), "kafka.share-consumer", "false");
    }
}
