package io.switchboard.testkit.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("cluster")
@Tag("extended") // RocketMqClusterFaultTest fails the master over on the same cluster class, and more; this runs with -Dsurefire.excludedGroups=none
@DisplayName("RocketMqCluster: three brokers in controller mode")
class RocketMqClusterTest {

    @Test
    @DisplayName("elects a master with all three in sync, fails over when it is killed, takes the old master back as a slave")
    void failsOver() throws Exception {
        try (RocketMqCluster cluster = RocketMqCluster.start(3)) {
            assertThat(cluster.inSync()).containsExactlyInAnyOrder(1, 2, 3);
            int master = cluster.master();
            assertThat(send(cluster, "before")).isEqualTo(SendStatus.SEND_OK);
            cluster.kill(master);
            int next = cluster.awaitMasterOtherThan(master);
            assertThat(next).isNotEqualTo(master).isPositive();
            cluster.restart(master);
            cluster.awaitInSync();
            assertThat(cluster.master()).isEqualTo(next);
            assertThat(send(cluster, "after")).isEqualTo(SendStatus.SEND_OK);
        }
    }

    private static SendStatus send(RocketMqCluster cluster, String body) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(cluster.nameServerAddress());
        admin.setInstanceName("cluster-admin-" + System.nanoTime());
        admin.start();
        try {
            admin.createAndUpdateTopicConfig(cluster.addressOf(cluster.master()), new TopicConfig("ClusterProbe", 2, 2));
            // the master registers the new topic with the name server asynchronously
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> !admin.examineTopicRouteInfo("ClusterProbe").getBrokerDatas().isEmpty());
        } finally {
            admin.shutdown();
        }
        DefaultMQProducer producer = new DefaultMQProducer("cluster_test_probe");
        producer.setNamesrvAddr(cluster.nameServerAddress());
        producer.setInstanceName("cluster-probe-" + System.nanoTime());
        producer.start();
        try {
            SendResult result = producer.send(new Message("ClusterProbe", body.getBytes(StandardCharsets.UTF_8)));
            return result.getSendStatus();
        } finally {
            producer.shutdown();
        }
    }
}
