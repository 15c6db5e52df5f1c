package io.switchboard.kafka;

import io.switchboard.testkit.ClientCostCheck;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The comparison's client CPU and bytes on the wire per message on the in-process Kafka broker (issue 36). */
class ClientCostKafkaTest {

    @Test
    @DisplayName("client CPU per message covers kafka-clients' producer network thread and the adapter's poll thread")
    void clientCost() throws Exception {
        ClientCostCheck.run("kafka", Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap()),
                KafkaTestSupport.topic("cost"), 5_000, Pattern.compile(
                        "kafka-producer-network-thread \\| producer-\\d+|switchboard-kafka\\[x]-.*"));
    }
}
