package io.switchboard.it.fleet;

import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/** The fleet with its control channel on RocketMQ, a name server and broker of its own whose broker is reached through a proxy. */
@DisplayName("A fleet of three replica JVMs, control channel on RocketMQ")
class FleetOnRocketMqControlTest extends FleetCases {

    private EmbeddedRocketMq control;

    @Override
    String controlBroker() {
        return "rocketmq";
    }

    @Override
    Map<String, String> startControl() {
        control = EmbeddedRocketMq.startBehindProxy();
        return Map.of("broker", "rocketmq", "rocketmq.namesrv-addr", control.nameServerAddress());
    }

    @Override
    TcpProxy proxy() {
        return control.brokerProxy();
    }

    @Override
    void stopControl() {
        control.close();
    }
}
