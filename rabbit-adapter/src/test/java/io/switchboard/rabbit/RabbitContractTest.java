package io.switchboard.rabbit;

import io.switchboard.testkit.BrokerContract;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The RabbitMQ adapter")
class RabbitContractTest extends BrokerContract {

    private static final RabbitMqServer SERVER = RabbitMqServer.local();
    /** Every destination the suite used: their group queues are swept at the end (AMQP cannot list them). */
    private static final Set<String> USED = ConcurrentHashMap.newKeySet();

    @Override
    protected String brokerId() {
        return "rabbitmq";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        SERVER.require();
        return Map.of("rabbitmq.uri", SERVER.uriWithCredentials());
    }

    @Override
    protected String destination() {
        String destination = super.destination();
        USED.add(destination + ".");
        USED.add(destination);
        return destination;
    }

    @AfterAll
    static void deleteEveryQueueTheSuiteCreated() throws Exception {
        SERVER.deleteNamesStartingWith(USED);
    }
}
