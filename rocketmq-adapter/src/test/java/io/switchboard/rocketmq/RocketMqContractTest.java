package io.switchboard.rocketmq;

import io.switchboard.testkit.BrokerContract;
import io.switchboard.testkit.ThreadLeaks;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The RocketMQ adapter")
class RocketMqContractTest extends BrokerContract {

    @Override
    protected String brokerId() {
        return "rocketmq";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        return embeddedBroker();
    }

    /** The embedded name server's and broker's threads, some of which start only once clients use them. */
    @Override
    protected ThreadLeaks threadsBefore() {
        return super.threadsBefore().ignoring(EmbeddedRocketMq.THREADS);
    }

    /**
     * A client instance's Netty worker group (4 threads) and its scan pool start threads as they need them:
     * seen while a subscription came and went on a client instance that stayed open.
     */
    @Override
    protected String poolThreadsOfOpenClients() {
        return "NettyClientScan_thread_\\d+|NettyClientWorkerThread_\\d+";
    }

    /** The adapter's properties for the JVM's shared embedded RocketMQ. */
    static Map<String, String> embeddedBroker() {
        return Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress());
    }
}
