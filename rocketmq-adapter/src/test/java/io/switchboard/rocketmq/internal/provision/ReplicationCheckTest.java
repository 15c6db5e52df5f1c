package io.switchboard.rocketmq.internal.provision;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The decision behind switchboard.cluster-check for a RocketMQ broker group, from its master's settings. */
@DisplayName("RocketMQ broker group replication check")
class ReplicationCheckTest {

    @Test
    @DisplayName("controller mode keeps acknowledged messages only with allAckInSyncStateSet and minInSyncReplicas >= 2")
    void controllerMode() {
        assertThat(RocketMqProvisioner.replicationProblem("g", 3, settings("enableControllerMode", "true",
                "allAckInSyncStateSet", "true", "minInSyncReplicas", "2"))).isEmpty();
        assertThat(RocketMqProvisioner.replicationProblem("g", 3, settings("enableControllerMode", "true",
                "allAckInSyncStateSet", "false", "minInSyncReplicas", "2")))
                .hasValueSatisfying(p -> assertThat(p).contains("'g' (3 brokers, controller mode)")
                        .contains("allAckInSyncStateSet=false").contains("set allAckInSyncStateSet=true"));
        assertThat(RocketMqProvisioner.replicationProblem("g", 3, settings("enableControllerMode", "true",
                "allAckInSyncStateSet", "true", "minInSyncReplicas", "1")))
                .hasValueSatisfying(p -> assertThat(p).contains("minInSyncReplicas=1").contains("set minInSyncReplicas=2"));
    }

    @Test
    @DisplayName("classic master-slave keeps them only with a SYNC_MASTER")
    void masterSlave() {
        assertThat(RocketMqProvisioner.replicationProblem("g", 2, settings("brokerRole", "SYNC_MASTER"))).isEmpty();
        assertThat(RocketMqProvisioner.replicationProblem("g", 2, settings("brokerRole", "ASYNC_MASTER")))
                .hasValueSatisfying(p -> assertThat(p).contains("brokerRole=ASYNC_MASTER").contains("set brokerRole=SYNC_MASTER"));
    }

    private static Properties settings(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            p.setProperty(pairs[i], pairs[i + 1]);
        }
        return p;
    }
}
