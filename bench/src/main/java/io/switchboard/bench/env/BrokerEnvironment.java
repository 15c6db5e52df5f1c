package io.switchboard.bench.env;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.switchboard.bench.driver.BrokerEndpoints;
import io.switchboard.spi.BrokerConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The brokers of one harness run: external clusters where their address was given, otherwise
 * Kafka and RocketMQ started from the testkit, in-process or each in a child JVM, and the local
 * RabbitMQ server. Only the brokers the plan needs are started. Closing stops what was started here.
 * The process ids of the brokers on this machine (child JVMs, the local RabbitMQ server) are known,
 * for their CPU time.
 */
public final class BrokerEnvironment implements AutoCloseable {

    /** The local RabbitMQ server's URI, used when none is given. */
    public static final String DEFAULT_RABBIT_URI = "amqp://guest:guest@127.0.0.1:5672/";

    private final BrokerEndpoints endpoints;
    private final List<AutoCloseable> started;
    private final Map<String, Long> pids;

    private BrokerEnvironment(BrokerEndpoints endpoints, List<AutoCloseable> started, Map<String, Long> pids) {
        this.endpoints = endpoints;
        this.started = started;
        this.pids = Map.copyOf(pids);
    }

    /**
     * Makes the brokers available, Kafka and RocketMQ in-process where no address is given.
     *
     * @param brokers the broker ids the plan uses
     * @param kafkaBootstrap an external Kafka, or null to start one in-process
     * @param rabbitUri RabbitMQ's URI, or null for the local server
     * @param rocketMqNameServer an external RocketMQ name server, or null to start one in-process
     * @param log where to say what was started
     * @return the brokers
     */
    public static BrokerEnvironment start(Collection<String> brokers, String kafkaBootstrap, String rabbitUri,
            String rocketMqNameServer, PrintStream log) {
        return start(brokers, kafkaBootstrap, rabbitUri, rocketMqNameServer, false, log);
    }

    /**
     * Makes the brokers available.
     *
     * @param brokers the broker ids the plan uses
     * @param kafkaBootstrap an external Kafka, or null to start one in-process
     * @param rabbitUri RabbitMQ's URI, or null for the local server
     * @param rocketMqNameServer an external RocketMQ name server, or null to start one
     * @param inChild start Kafka and RocketMQ each in a JVM of its own instead of in this one
     * @param log where to say what was started
     * @return the brokers
     */
    public static BrokerEnvironment start(Collection<String> brokers, String kafkaBootstrap, String rabbitUri,
            String rocketMqNameServer, boolean inChild, PrintStream log) {
        List<AutoCloseable> started = new ArrayList<>();
        Map<String, Long> pids = new HashMap<>();
        String kafka = null;
        String rabbit = null;
        String rocketmq = null;
        try {
            if (brokers.contains("kafka")) {
                kafka = kafkaBootstrap != null ? EmbeddedBrokers.reachable("Kafka", "--kafka-bootstrap", kafkaBootstrap)
                        : inChild ? child("kafka", started, pids, log) : EmbeddedBrokers.startKafka(started, log);
            }
            if (brokers.contains("rocketmq")) {
                rocketmq = rocketMqNameServer != null
                        ? EmbeddedBrokers.reachable("RocketMQ name server", "--rocketmq-namesrv", rocketMqNameServer)
                        : inChild ? child("rocketmq", started, pids, log) : EmbeddedBrokers.startRocketMq(started, log);
            }
            if (brokers.contains("rabbitmq")) {
                rabbit = checkRabbit(rabbitUri != null ? rabbitUri : DEFAULT_RABBIT_URI);
                OptionalLong server = BrokerProcesses.localRabbitServer(rabbit);
                server.ifPresent(pid -> pids.put("rabbitmq", pid));
                log.println("RabbitMQ: " + BrokerConfig.printable("uri", rabbit)
                        + (server.isPresent() ? " (server pid " + server.getAsLong() + ")" : ""));
            }
        } catch (RuntimeException e) {
            new BrokerEnvironment(null, started, pids).close();
            throw e;
        }
        return new BrokerEnvironment(new BrokerEndpoints(kafka, rabbit, rocketmq), started, pids);
    }

    private static String child(String broker, List<AutoCloseable> started, Map<String, Long> pids, PrintStream log) {
        BrokerChild child = EmbeddedBrokers.startChild(broker, started, log);
        pids.put(broker, child.pid());
        return child.address();
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

    /**
     * Where the brokers are.
     *
     * @return the addresses
     */
    public BrokerEndpoints endpoints() {
        return endpoints;
    }

    /**
     * The process ids of the brokers that run on this machine in a process of their own: the child
     * JVMs of {@code --brokers-in-child}, and the local RabbitMQ server when it was found.
     *
     * @return broker id to process id
     */
    public Map<String, Long> brokerPids() {
        return pids;
    }

    /** Stops the brokers started here (in-process or child JVMs), last started first. */
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
