package io.switchboard.testkit;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The memory broker")
class MemoryContractTest extends BrokerContract {

    @Override
    protected String brokerId() {
        return "memory";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        return Map.of("memory.broker", "contract", "memory.max-message-size", "65536");
    }
}
