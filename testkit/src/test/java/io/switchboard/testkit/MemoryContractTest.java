package io.switchboard.testkit;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;

// tag::contract-subclass[]
@DisplayName("The memory broker")
class MemoryContractTest extends BrokerContract {

    @Override
    protected String brokerId() {
        return "memory";                                    // the adapter id your factory returns
    }

    @Override
    protected Map<String, String> brokerProperties() {     // how to reach a real broker
        return Map.of("memory.broker", "contract", "memory.max-message-size", "65536");
    }
}
// end::contract-subclass[]
