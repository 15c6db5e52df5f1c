package io.switchboard.bench.env;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.io.IOException;
import java.io.InputStream;

/**
 * The JVM of a broker that {@code --brokers-in-child} starts: the same single-node broker as the
 * in-process mode (testkit's {@link EmbeddedKafka}, or {@link EmbeddedRocketMq}: name server and
 * broker), in a process of its own, so that the bench JVM's CPU time is the clients' alone.
 *
 * <p>Argument: {@code kafka} or {@code rocketmq}. Prints {@code @@ started <address>} (Kafka's
 * bootstrap servers, RocketMQ's name server) once clients can use it. Lives as long as its parent:
 * it stops the broker and exits when its standard input ends (the parent closed it, or died, which
 * closes it too) or when the parent process is gone, and on SIGTERM.
 */
public final class BrokerChildMain {

    /** The line's start that announces the broker's address. */
    static final String STARTED = "@@ started ";

    private BrokerChildMain() {}

    /**
     * Entry point; see the class comment.
     *
     * @param args {@code kafka} or {@code rocketmq}
     * @throws IOException if standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1 || !(args[0].equals("kafka") || args[0].equals("rocketmq"))) {
            System.err.println("usage: BrokerChildMain kafka|rocketmq");
            System.exit(2);
        }
        // a parent that exits without closing our input (it cannot, but a wrapper process might) ends us too
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(0)));
        AutoCloseable broker;
        String address;
        if (args[0].equals("kafka")) {
            EmbeddedKafka kafka = EmbeddedKafka.start();
            broker = kafka;
            address = kafka.bootstrapServers();
        } else {
            EmbeddedRocketMq rocketmq = EmbeddedRocketMq.start();
            broker = rocketmq;
            address = rocketmq.nameServerAddress();
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                broker.close();
            } catch (Exception e) {
                e.printStackTrace(); // into the child's log
            }
        }, "bench-broker-child-shutdown"));
        System.out.println(STARTED + address);
        System.out.flush();
        drain(System.in);
        System.exit(0);
    }

    /** Reads until end of input: the parent closed our input, or is gone. */
    private static void drain(InputStream in) throws IOException {
        byte[] buffer = new byte[256];
        while (in.read(buffer) >= 0) {
            // nothing is sent; the read only waits for the end
        }
    }
}
