package io.switchboard.kafka.internal.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.SwitchboardException;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Provisioning Kafka topics")
class KafkaProvisionerTest {

    private final KafkaProvisioner provisioner = new KafkaProvisioner(new KafkaClientConfig(new BrokerConfig("p", "kafka",
            Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers()))));
    private final Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            EmbeddedKafka.shared().bootstrapServers()));
    private final String topic = "prov-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void close() {
        provisioner.close();
        admin.close();
    }

    @Test
    @DisplayName("creates a topic with its partitions, replication factor and configs, and leaves an existing one alone")
    void createsWithSettings() throws Exception {
        provisioner.ensureDestination(new DestinationSpec(topic, 3,
                Map.of("replication.factor", "1", "retention.ms", "3600000", "cleanup.policy", "compact")));
        provisioner.ensureDestination(DestinationSpec.of(topic, 5));

        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        assertThat(description.partitions()).hasSize(3).allSatisfy(p -> assertThat(p.replicas()).hasSize(1));
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        assertThat(config.get("retention.ms").value()).isEqualTo("3600000");
        assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
    }

    @Test
    @DisplayName("deletes a topic and waits until it is gone; deleting a missing topic is fine")
    void deletes() throws Exception {
        provisioner.ensureDestination(DestinationSpec.of(topic, 1));
        provisioner.deleteDestination(topic);
        provisioner.deleteDestination(topic);
        assertThat(admin.listTopics().names().get()).doesNotContain(topic);
        provisioner.ensureDestination(DestinationSpec.of(topic, 2));
        assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()).hasSize(2);
    }

    @Test
    @DisplayName("makes many topics in one batch and returns once every partition is led and online on its leader")
    void batchWaitsForEveryPartitionOnline() throws Exception {
        List<String> names = java.util.stream.IntStream.range(0, 30).mapToObj(i -> topic + "-b" + i).toList();
        provisioner.ensureDestinations(names.stream().map(name -> DestinationSpec.of(name, 3)).toList());

        Map<String, TopicDescription> made = admin.describeTopics(names).allTopicNames().get();
        assertThat(made).hasSize(30).allSatisfy((name, d) -> assertThat(d.partitions()).hasSize(3)
                .allSatisfy(p -> assertThat(p.leader()).isNotNull()));
        List<org.apache.kafka.common.TopicPartition> partitions = names.stream()
                .flatMap(name -> java.util.stream.IntStream.range(0, 3).mapToObj(p -> new org.apache.kafka.common.TopicPartition(name, p)))
                .toList();
        // asked once, right away: a partition not yet online on its leader would fail this with NOT_LEADER_OR_FOLLOWER
        assertThat(admin.describeProducers(partitions).all().get(30, java.util.concurrent.TimeUnit.SECONDS)).hasSize(90);
        assertThat(PartitionsOnline.onlineOf(admin, partitions, java.time.Duration.ofSeconds(30))).hasSize(90);
    }

    @Test
    @DisplayName("names the topic and the problem when the broker or the settings refuse")
    void refusals() {
        assertThatThrownBy(() -> provisioner.ensureDestination(new DestinationSpec(topic, 1, Map.of("replication.factor", "0"))))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("replication.factor").hasMessageContaining("'0'");
        assertThatThrownBy(() -> provisioner.ensureDestination(new DestinationSpec(topic, 1, Map.of("replication.factor", "3"))))
                .isInstanceOf(SwitchboardException.class).hasMessageContaining(topic).hasMessageContaining("replication");
        assertThatThrownBy(() -> provisioner.ensureDestination(new DestinationSpec(topic, 1, Map.of("retention.ms", "soon"))))
                .isInstanceOf(SwitchboardException.class).hasMessageContaining(topic).hasMessageContaining("retention.ms");
    }
}
