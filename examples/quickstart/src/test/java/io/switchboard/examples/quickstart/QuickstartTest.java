package io.switchboard.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rabbit.RabbitScratch;
import java.util.Properties;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The quickstart runs unchanged on every broker; only its configuration changes")
class QuickstartTest {

    @Test
    @DisplayName("on the in-memory broker, with no properties")
    void memory() throws Exception {
        assertThat(Quickstart.run(new Properties())).startsWith("Billed 10 of 10 orders on memory");
    }

    @Test
    @DisplayName("on Kafka: broker=kafka and its address")
    void kafka() throws Exception {
        Properties p = new Properties();
        p.setProperty("broker", "kafka");
        p.setProperty("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
        assertThat(Quickstart.run(p)).startsWith("Billed 10 of 10 orders on kafka");
    }

    @Test
    @DisplayName("on RabbitMQ: broker=rabbitmq and its URI")
    void rabbit() throws Exception {
        RabbitMqServer server = RabbitMqServer.local().require();
        // RabbitMQ outlives the test: a destination of its own, deleted after, so that what an earlier
        // run left in a durable queue is not counted here.
        try (RabbitScratch scratch = server.scratch("quickstart")) {
            Properties p = new Properties();
            p.setProperty("broker", "rabbitmq");
            p.setProperty("rabbitmq.uri", server.uriWithCredentials());
            p.setProperty("destination", scratch.name("orders"));
            assertThat(Quickstart.run(p)).startsWith("Billed 10 of 10 orders on rabbitmq");
        }
    }
}
