package io.switchboard.bench.env;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.switchboard.bench.driver.BrokerEndpoints;
import io.switchboard.spi.BrokerConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The brokers of one harness run: external clusters where their address was given, otherwise
 * Kafka and RocketMQ started in-process (from the testkit) and the local RabbitMQ server. Only
 * the brokers the plan needs are started. Closing stops what was started here.
 */
public final class BrokerEnvironment implements AutoCloseable {

    /** The local RabbitMQ server's URI, used when none is given. */
    public static final String DEFAULT_RABBIT_URI = "amqp://guest:guest@127.0.0.1:5672/";

    private final BrokerEndpoints endpoints;
    private final List<AutoCloseable> started;

    private BrokerEnvironment(BrokerEndpoints endpoints, List<AutoCloseable> started) {
        this.endpoints = endpoints;
        this.started = started;
    }

    /**
     * Makes the brokers available.
     *
     * @param brokers the broker ids the plan uses
     * @param kafkaBootstrap an external Kafka, or null to start one in-process
     * @param rabbitUri RabbitMQ's URI, or null for the local server
     * @param rocketMqNameServer an external RocketMQ name server, or null to start one in-process
     * @param log where to say what was started
     */
    public static BrokerEnvironment start(Collection<String> brokers, String kafkaBootstrap, String rabbitUri,
            String rocketMqNameServer, PrintStream log) {
        List<AutoCloseable> started = new ArrayList<>();
        String kafka = null;
        String rabbit = null;
        String rocketmq = null;
        try {
            if (brokers.contains("kafka")) {
                kafka = kafkaBootstrap != null ? EmbeddedBrokers.reachable("Kafka", "--kafka-bootstrap", kafkaBootstrap)
                        : EmbeddedBrokers.startKafka(started, log);
            }
            if (brokers.contains("rocketmq")) {
                rocketmq = rocketMqNameServer != null
                        ? EmbeddedBrokers.reachable("RocketMQ name server", "--rocketmq-namesrv", rocketMqNameServer)
                        : EmbeddedBrokers.startRocketMq(started, log);
            }
            if (brokers.contains("rabbitmq")) {
                rabbit = checkRabbit(rabbitUri != null ? rabbitUri : DEFAULT_RABBIT_URI);
                log.println("RabbitMQ: " + BrokerConfig.printable("uri", rabbit));
            }
        } catch (RuntimeException e) {
            new BrokerEnvironment(null, started).close();
            throw e;
        }
        return new BrokerEnvironment(new BrokerEndpoints(kafka, rabbit, rocketmq), started);
    }

    private static String checkRabbit(String given) {
        // amqp-client reads "amqp://host:5672/" as the empty virtual host; RabbitMQ's default is "/"
        String uri = given.matches("amqps?://[^/]+/") ? given.substring(0, given.length() - 1) : given;
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
            factory.setConnectionTimeout(5_000);
            try (Connection ignored = factory.newConnection("switchboard-bench-check")) {
                return uri;
            }
        } catch (Exception e) {
            throw new IllegalStateException("RabbitMQ is not reachable at " + BrokerConfig.printable("uri", uri) + " ("
                    + e.getMessage() + "); start the local server with `rabbitmq-server -detached` (the port opens "
                    + "after 10-20 s), pass --rabbit-uri for another server, or leave rabbitmq out with --brokers", e);
        }
    }

    /** Where the brokers are. */
    public BrokerEndpoints endpoints() {
        return endpoints;
    }

    /** Stops the in-process brokers, last started first. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                // stopping is best effort at the end of a run
            }
        }
        started.clear();
    }
}
