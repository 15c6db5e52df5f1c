package io.switchboard.examples.demo;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's brokers on a machine with nothing configured: Kafka (A) started in-process unless
 * {@code demo.kafka.bootstrap-servers} is given; RabbitMQ (B) the local server; if RabbitMQ is not
 * reachable, the demo says so and uses RocketMQ, started in-process, as B. The result is a set of
 * properties that application.yml's placeholders read.
 */
final class DemoBrokers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DemoBrokers.class);

    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final List<AutoCloseable> started = new ArrayList<>();

    /** Starts what is missing. */
    static DemoBrokers start(String kafkaBootstrap, String rabbitHost, int rabbitPort) {
        DemoBrokers b = new DemoBrokers();
        if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
            EmbeddedKafka kafka = EmbeddedKafka.start();
            b.started.add(kafka);
            kafkaBootstrap = kafka.bootstrapServers();
            log.info("Broker A: Kafka started in-process at {}", kafkaBootstrap);
        }
        b.properties.put("demo.kafka.bootstrap-servers", kafkaBootstrap);
        if (reachable(rabbitHost, rabbitPort)) {
            log.info("Broker B: RabbitMQ at {}:{}", rabbitHost, rabbitPort);
        } else {
            log.warn("Broker B: RabbitMQ is not reachable at {}:{} (start it with `rabbitmq-server -detached`); using RocketMQ, "
                    + "started in-process, as B instead", rabbitHost, rabbitPort);
            EmbeddedRocketMq rocket = EmbeddedRocketMq.start();
            b.started.add(rocket);
            b.properties.put("demo.b.type", "rocketmq");
            b.properties.put("switchboard.instances.b.name-server", rocket.nameServerAddress());
        }
        return b;
    }

    private static boolean reachable(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Properties for the Spring environment. */
    Map<String, Object> properties() {
        return properties;
    }

    /** Stops what was started here. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                log.debug("Stopping an embedded broker failed", e);
            }
        }
    }
}
