package io.switchboard.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.spi.BrokerConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Kafka client configuration from broker properties")
class KafkaClientConfigTest {

    private static KafkaClientConfig config(String... properties) {
        Map<String, String> map = new HashMap<>(Map.of("kafka.bootstrap.servers", "localhost:9092"));
        for (int i = 0; i < properties.length; i += 2) {
            map.put(properties[i], properties[i + 1]);
        }
        return new KafkaClientConfig(new BrokerConfig("main", "kafka", map));
    }

    @Test
    @DisplayName("passes each kafka.* property to the clients that know it, and client-prefixed ones to one client")
    void passThrough() {
        KafkaClientConfig config = config("kafka.linger.ms", "7", "kafka.fetch.min.bytes", "1024",
                "kafka.security.protocol", "PLAINTEXT", "kafka.producer.client.id", "p", "kafka.consumer.client.id", "c",
                "kafka.interceptor.custom.setting", "x", "kafka.commit-interval", "1s");

        Map<String, Object> producer = config.producer(Delivery.AT_LEAST_ONCE, "t", Map.of());
        Map<String, Object> consumer = config.consumer("g", Delivery.AT_LEAST_ONCE, false, 100, Map.of());

        assertThat(producer).containsEntry("linger.ms", "7").containsEntry("security.protocol", "PLAINTEXT")
                .containsEntry("client.id", "p").containsEntry("interceptor.custom.setting", "x")
                .doesNotContainKeys("fetch.min.bytes", "commit-interval");
        assertThat(consumer).containsEntry("fetch.min.bytes", "1024").containsEntry("client.id", "c")
                .containsEntry("interceptor.custom.setting", "x").doesNotContainKeys("linger.ms", "commit-interval");
    }

    @Test
    @DisplayName("sets each guarantee's producer settings")
    void producerPerDelivery() {
        KafkaClientConfig config = config();
        assertThat(config.producer(Delivery.AT_MOST_ONCE, "t", Map.of()))
                .containsEntry("acks", "1").containsEntry("retries", "0").containsEntry("enable.idempotence", "false");
        assertThat(config.producer(Delivery.AT_LEAST_ONCE, "t", Map.of()))
                .containsEntry("acks", "all").containsEntry("enable.idempotence", "true").doesNotContainKey("transactional.id");
        String first = (String) config.producer(Delivery.EXACTLY_ONCE, "t", Map.of()).get("transactional.id");
        String second = (String) config.producer(Delivery.EXACTLY_ONCE, "t", Map.of()).get("transactional.id");
        assertThat(first).startsWith("switchboard-t-").isNotEqualTo(second);
        assertThat(config.producer(Delivery.AT_MOST_ONCE, "t", Map.of("kafka.acks", "0"))).containsEntry("acks", "0");
    }

    @Test
    @DisplayName("sets the consumer's group, manual commits, read_committed and the reset for broadcast")
    void consumerSettings() {
        Map<String, Object> consumer = config().consumer("billing", Delivery.AT_LEAST_ONCE, false, 64, Map.of());
        assertThat(consumer).containsEntry("group.id", "billing").containsEntry("enable.auto.commit", "false")
                .containsEntry("isolation.level", "read_committed").containsEntry("auto.offset.reset", "earliest")
                .containsEntry("max.poll.records", "64");
        assertThat(config().consumer("b-1", Delivery.AT_LEAST_ONCE, true, 1000, Map.of()))
                .containsEntry("auto.offset.reset", "latest").containsEntry("max.poll.records", "500");
    }

    @Test
    @DisplayName("refuses properties that would weaken the guarantee, naming property, value and fix")
    void refusesWeakerSettings() {
        assertThatThrownBy(() -> config("kafka.acks", "1").producer(Delivery.AT_LEAST_ONCE, "t", Map.of()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("kafka.acks")
                .hasMessageContaining("'1'").hasMessageContaining("AT_MOST_ONCE");
        assertThatThrownBy(() -> config().producer(Delivery.AT_MOST_ONCE, "t", Map.of("kafka.retries", "3")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("kafka.retries").hasMessageContaining("'3'");
        assertThatThrownBy(() -> config("kafka.isolation.level", "read_uncommitted")
                .consumer("g", Delivery.EXACTLY_ONCE, false, 10, Map.of()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("read_uncommitted");
        assertThatThrownBy(() -> config("kafka.transactional.id", "shared").producer(Delivery.EXACTLY_ONCE, "t", Map.of()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("kafka.transactional.id")
                .hasMessageContaining("transactional-id-prefix");
    }

    @Test
    @DisplayName("requires bootstrap servers, saying what they are")
    void requiresBootstrap() {
        assertThatThrownBy(() -> new KafkaClientConfig(new BrokerConfig("main", "kafka", Map.of())))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("kafka.bootstrap.servers");
    }

    @Test
    @DisplayName("checks topic names against Kafka's rule")
    void topicNames() {
        assertThat(KafkaAdapter.TOPIC_NAMES.violation("orders.v2_eu-west")).isEmpty();
        assertThat(KafkaAdapter.TOPIC_NAMES.violation("a".repeat(249))).isEmpty();
        assertThat(KafkaAdapter.TOPIC_NAMES.violation("a".repeat(250))).get().asString().contains("249");
        assertThat(KafkaAdapter.TOPIC_NAMES.violation("..")).isPresent();
        assertThat(KafkaAdapter.TOPIC_NAMES.violation(".")).isPresent();
        assertThat(KafkaAdapter.TOPIC_NAMES.violation("orders/eu")).get().asString().contains("letters, digits");
    }
}
