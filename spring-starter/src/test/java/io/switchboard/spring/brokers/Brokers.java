package io.switchboard.spring.brokers;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.util.List;
import java.util.UUID;

/**
 * The real brokers the starter's application tests run on: the in-process Kafka of testkit and the
 * local RabbitMQ server (a missing server fails the test with the command that starts it). Names
 * carry a run id, and {@link #deleteRabbitLeftovers()} removes what a run declared on RabbitMQ.
 */
final class Brokers {

    /** Unique per test JVM, so a run never sees an earlier run's messages on the persistent RabbitMQ. */
    static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    private Brokers() {}

    static String kafkaBootstrap() {
        return EmbeddedKafka.shared().bootstrapServers();
    }

    static RabbitMqServer rabbit() {
        return RabbitMqServer.local().require();
    }

    /** A destination name of this run. */
    static String destination(String name) {
        return "sbt-" + name + "-" + RUN;
    }

    /** Deletes the exchanges and queues this run declared on RabbitMQ. */
    static void deleteRabbitLeftovers() throws Exception {
        rabbit().deleteNamesStartingWith(List.of("sbt-"));
    }
}
