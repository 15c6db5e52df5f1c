package io.switchboard.bench.env;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * Starts the testkit's single-node brokers in the bench's own JVM (the figures in bench/README.md say
 * so: broker and clients share the JVM and the two cores) or, with {@code --brokers-in-child}, each in
 * a JVM of its own ({@link BrokerChild}), and checks that external ones answer. Every failure is an
 * {@link IllegalStateException} naming the broker and the fix; the CLI exits 3.
 */
final class EmbeddedBrokers {

    private EmbeddedBrokers() {}

    static String startKafka(List<AutoCloseable> started, PrintStream log) {
        try {
            EmbeddedKafka kafka = EmbeddedKafka.start();
            started.add(kafka);
            log.println("Kafka: started in-process (KRaft) at " + kafka.bootstrapServers());
            return kafka.bootstrapServers();
        } catch (RuntimeException e) {
            throw new IllegalStateException("Could not start Kafka in-process (" + e + "); pass --kafka-bootstrap host:port "
                    + "for an external broker, or leave kafka out with --brokers", e);
        }
    }

    static String startRocketMq(List<AutoCloseable> started, PrintStream log) {
        try {
            EmbeddedRocketMq rocketmq = EmbeddedRocketMq.start();
            started.add(rocketmq);
            log.println("RocketMQ: started in-process, name server " + rocketmq.nameServerAddress());
            return rocketmq.nameServerAddress();
        } catch (RuntimeException e) {
            throw new IllegalStateException("Could not start RocketMQ in-process (" + e + "); pass --rocketmq-namesrv host:port "
                    + "for an external name server, or leave rocketmq out with --brokers", e);
        }
    }

    /**
     * Starts {@code broker} ({@code kafka} or {@code rocketmq}) in a JVM of its own, adds it to
     * {@code started} and returns it.
     */
    static BrokerChild startChild(String broker, List<AutoCloseable> started, PrintStream log) {
        String name = broker.equals("kafka") ? "Kafka" : "RocketMQ";
        try {
            BrokerChild child = BrokerChild.start(broker);
            started.add(child);
            log.println(name + ": started in a child JVM (pid " + child.pid() + ", " + BrokerChild.HEAP + ") at "
                    + child.address() + (broker.equals("kafka") ? "" : " (name server)"));
            return child;
        } catch (RuntimeException e) {
            throw new IllegalStateException("Could not start " + name + " in a child JVM (" + e.getMessage() + "); run "
                    + "without --brokers-in-child to start it in-process, or leave " + broker + " out with --brokers", e);
        }
    }

    /** Checks that one of {@code addresses} (comma-separated host:port) accepts a connection within 5 s. */
    static String reachable(String broker, String option, String addresses) {
        IOException last = null;
        for (String address : addresses.split(",")) {
            String a = address.trim();
            int colon = a.lastIndexOf(':');
            if (colon < 1) {
                throw new IllegalStateException(broker + " address '" + a + "' is not host:port; fix " + option);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))), 5000);
                return addresses;
            } catch (IOException | NumberFormatException e) {
                last = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            }
        }
        throw new IllegalStateException(broker + " is not reachable at " + addresses + " (" + last.getMessage() + "); start it, fix "
                + option + ", or omit " + option + " to start one in-process", last);
    }
}
