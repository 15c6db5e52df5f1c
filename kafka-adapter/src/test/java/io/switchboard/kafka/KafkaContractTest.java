package io.switchboard.kafka;

import io.switchboard.testkit.BrokerContract;
import io.switchboard.testkit.ThreadLeaks;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The Kafka adapter on an embedded KRaft broker")
class KafkaContractTest extends BrokerContract {

    @Override
    protected String brokerId() {
        return "kafka";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
    }

    /** The adapter's delivery pool for shared consumers: idle threads retire after 10 s, all end when it closes. */
    @Override
    protected String poolThreadsOfOpenClients() {
        return "switchboard-kafka\\[.*\\]-deliver-\\d+";
    }

    /** The embedded broker's threads, some of which start only once clients use it. */
    @Override
    protected ThreadLeaks threadsBefore() {
        return super.threadsBefore().ignoring(EmbeddedKafka.THREADS);
    }
}
