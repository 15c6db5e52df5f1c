package io.switchboard.rocketmq;

import io.switchboard.testkit.BrokerContract;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The RocketMQ adapter")
class RocketMqContractTest extends BrokerContract {

    @Override
    protected String brokerId() {
        return "rocketmq";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        return embeddedBroker();
    }

    /** The adapter's properties for the JVM's shared embedded RocketMQ. */
    static Map<String, String> embeddedBroker() {
        return Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress());
    }
}
