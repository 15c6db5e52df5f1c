package io.switchboard.rabbit;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/**
 * The whole contract again with {@code rabbitmq.exchange-type=direct}: destinations are direct exchanges routed by
 * partition, tag filters apply in the client, broker dead-letters go with routing key {@code 0}.
 */
@DisplayName("The RabbitMQ adapter with direct exchanges")
class RabbitDirectContractTest extends RabbitContractTest {

    @Override
    protected Map<String, String> brokerProperties() {
        Map<String, String> properties = new HashMap<>(super.brokerProperties());
        properties.put("rabbitmq.exchange-type", "direct");
        return properties;
    }
}
