package io.switchboard.it.fleet;

import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/** The fleet with its control channel on Kafka (a compacted topic and a one-partition group), a second broker behind a proxy. */
@DisplayName("A fleet of three replica JVMs, control channel on Kafka")
class FleetOnKafkaControlTest extends FleetCases {

    private TcpProxy proxy;
    private EmbeddedKafka control;

    @Override
    String controlBroker() {
        return "kafka";
    }

    @Override
    Map<String, String> startControl() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        proxy = TcpProxy.start("127.0.0.1", port);
        control = EmbeddedKafka.builder().port(port).advertisedPort(proxy.port())
                .brokerProperty("num.network.threads", "2").brokerProperty("num.io.threads", "2")
                .brokerProperty("background.threads", "2").brokerProperty("log.cleaner.threads", "1")
                .brokerProperty("log.segment.bytes", Integer.toString(16 * 1024 * 1024)).start();
        return Map.of("broker", "kafka", "kafka.bootstrap.servers", "127.0.0.1:" + proxy.port());
    }

    @Override
    TcpProxy proxy() {
        return proxy;
    }

    @Override
    void stopControl() throws Exception {
        try (EmbeddedKafka k = control; TcpProxy p = proxy) {
            // closed in reverse order: the proxy, then the broker
        }
    }
}
