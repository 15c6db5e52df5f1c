package io.switchboard.it.fleet;

import io.switchboard.testkit.fault.TcpProxy;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/** The fleet with its control channel on RabbitMQ (a stream and an exclusive-queue lock), the local server behind a proxy. */
@DisplayName("A fleet of three replica JVMs, control channel on RabbitMQ")
class FleetOnRabbitControlTest extends FleetCases {

    private TcpProxy proxy;

    @Override
    String controlBroker() {
        return "rabbitmq";
    }

    @Override
    Map<String, String> startControl() {
        proxy = TcpProxy.start(RABBIT.host(), RABBIT.port());
        return Map.of("broker", "rabbitmq", "rabbitmq.uri", "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/");
    }

    @Override
    TcpProxy proxy() {
        return proxy;
    }

    @Override
    void stopControl() {
        proxy.close();
    }
}
