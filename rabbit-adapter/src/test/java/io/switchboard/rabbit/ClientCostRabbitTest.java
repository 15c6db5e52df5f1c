package io.switchboard.rabbit;

import io.switchboard.testkit.ClientCostCheck;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The comparison's client CPU and bytes on the wire per message on the local RabbitMQ server (issue 36). */
class ClientCostRabbitTest {

    @Test
    @DisplayName("client CPU per message covers amqp-client's connection threads (which it renames) and the delivery threads")
    void clientCost() throws Exception {
        ClientCostCheck.run("rabbitmq", Map.of(), "cost-" + UUID.randomUUID(), 5_000,
                Pattern.compile("AMQP Connection 127\\.0\\.0\\.1:5672|switchboard-rabbit-deliver-x-\\d+"));
    }
}
