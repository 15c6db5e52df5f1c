package io.switchboard.kafka.internal.provision;

import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ClusterCheck;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a cluster of several brokers, a topic with fewer than three replicas (or fewer than the brokers, when there are
 * two) loses acknowledged records with one broker's disk and stops while that broker is down; with three replicas,
 * {@code min.insync.replicas} below 2 lets the leader acknowledge records only it has. Reported once per topic, with
 * the fix, as {@code switchboard.cluster-check} says (logged, or refused).
 *
 * <p>The broker the admin client asks may not know a topic made a moment ago (one that has just restarted is still
 * catching up with the cluster's metadata, and answers that the topic does not exist), so a check that fails is
 * repeated until {@code kafka.admin-timeout}; one that still cannot be made is reported as such, never passed.
 */
final class ReplicationCheck {

    private static final Logger log = LoggerFactory.getLogger(ReplicationCheck.class);

    private ReplicationCheck() {
    }

    static void run(KafkaProvisioner provisioner, String name, int cluster, BrokerConfig broker, Duration timeout) {
        if (cluster < 2) {
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String problem;
        while (true) {
            try {
                problem = problem(provisioner, name, cluster, broker.instanceName());
                break;
            } catch (RuntimeException e) {
                if (System.nanoTime() - deadline > 0) {
                    problem = "Could not check the replication of Kafka topic '" + name + "' within " + timeout
                            + " (instance '" + broker.instanceName() + "'): " + e + "; check the brokers' health, or "
                            + "raise kafka.admin-timeout";
                    break;
                }
                log.debug("Checking the replication of topic '{}' again: {}", name, e.toString());
                KafkaProvisioner.pause();
            }
        }
        if (problem != null) {
            ClusterCheck.of(broker).report(log, problem);
        }
    }

    private static String problem(KafkaProvisioner provisioner, String name, int cluster, String instance) {
        TopicDescription description = provisioner.get(provisioner.admin().describeTopics(List.of(name)).allTopicNames(),
                "describe topic '" + name + "'").get(name);
        int replicas = description.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
        if (replicas < Math.min(3, cluster)) {
            return "Kafka topic '" + name + "' has replication factor " + replicas + " on a cluster of " + cluster
                    + " brokers (instance '" + instance + "'): an acknowledged record is lost with one broker's disk, and "
                    + "the topic stops while that broker is down; set kafka.replication-factor=3 (or the destination "
                    + "setting replication.factor) and min.insync.replicas=2 on the topic or the brokers";
        }
        if (replicas < 3) {
            return null;
        }
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, name);
        Config described = provisioner.get(provisioner.admin().describeConfigs(List.of(topic)).all(),
                "describe the settings of topic '" + name + "'").get(topic);
        ConfigEntry entry = described == null ? null : described.get("min.insync.replicas");
        int minInSync = entry == null || entry.value() == null ? 1 : Integer.parseInt(entry.value().trim());
        return minInSync >= 2 ? null : "Kafka topic '" + name + "' has " + replicas + " replicas but min.insync.replicas="
                + minInSync + " (instance '" + instance + "'): when the followers fall behind, the leader acknowledges "
                + "records only it has, and they are lost with it; set min.insync.replicas=2 on the brokers or the topic "
                + "(destination setting min.insync.replicas)";
    }
}
