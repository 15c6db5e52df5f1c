package io.switchboard.bench.env;

import java.io.PrintStream;
import java.util.List;

/** Starts the testkit's in-process brokers. */
final class EmbeddedBrokers {

    private EmbeddedBrokers() {}

    static String startKafka(List<AutoCloseable> started, PrintStream log) {
        throw new IllegalStateException("No embedded Kafka in this build: pass --kafka-bootstrap host:port");
    }

    static String startRocketMq(List<AutoCloseable> started, PrintStream log) {
        throw new IllegalStateException("No embedded RocketMQ in this build: pass --rocketmq-namesrv host:port");
    }
}
