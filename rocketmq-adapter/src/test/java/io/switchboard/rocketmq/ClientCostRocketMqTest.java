package io.switchboard.rocketmq;

import io.switchboard.testkit.ClientCostCheck;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The comparison's client CPU and bytes on the wire per message on the in-process RocketMQ broker (issue 36). */
class ClientCostRocketMqTest {

    @Test
    @DisplayName("client CPU per message covers rocketmq-client's pull and consume threads")
    void clientCost() throws Exception {
        ClientCostCheck.run("rocketmq", Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress()),
                "cost-" + UUID.randomUUID().toString().substring(0, 8), 3_000,
                Pattern.compile("PullMessageService|ConsumeMessageThread_.*|switchboard-rocketmq-consume-.*"));
    }
}
