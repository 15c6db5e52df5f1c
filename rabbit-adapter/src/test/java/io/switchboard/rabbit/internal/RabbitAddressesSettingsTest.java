package io.switchboard.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Address;
import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("rabbitmq.addresses: the nodes of a cluster, and the warning for classic queues on one")
class RabbitAddressesSettingsTest {

    private static RabbitSettings settings(Map<String, String> properties) {
        return new RabbitSettings(new BrokerConfig("main", "rabbitmq", properties));
    }

    @Test
    @DisplayName("unset: no addresses, the URI alone, no warning")
    void unset() {
        RabbitSettings s = settings(Map.of());
        assertThat(s.addresses).isEmpty();
        assertThat(s.printableUri()).isEqualTo("amqp://guest:******@127.0.0.1:5672/");
        assertThat(s.clusterWarning()).isEmpty();
    }

    @Test
    @DisplayName("host:port entries in the given order; a missing port is the scheme's default")
    void parsed() {
        RabbitSettings s = settings(Map.of("rabbitmq.addresses", " n1:5700, n2 ,[::1]:5702",
                "rabbitmq.queue-type", "quorum"));
        assertThat(s.addresses).containsExactly(new Address("n1", 5700), new Address("n2", 5672), new Address("::1", 5702));
        assertThat(s.printableUri()).isEqualTo("amqp://guest:******@127.0.0.1:5672/ (rabbitmq.addresses n1:5700,n2:5672,::1:5702)");
        assertThat(s.clusterWarning()).as("quorum queues on a cluster").isEmpty();

        RabbitSettings tls = settings(Map.of("rabbitmq.uri", "amqps://u:p@n1/", "rabbitmq.addresses", "n1,n2"));
        assertThat(tls.addresses).containsExactly(new Address("n1", 5671), new Address("n2", 5671));
    }

    @Test
    @DisplayName("a malformed entry is refused, naming the property, the entry and the expected form")
    void malformed() {
        for (String bad : new String[] {"n1:5672,,n2", "n1:notaport", "n1:70000", "amqp://n1", "u@n1:5672", "n1/vhost"}) {
            assertThatThrownBy(() -> settings(Map.of("rabbitmq.addresses", bad)))
                    .as(bad)
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("property 'rabbitmq.addresses'")
                    .hasMessageContaining("comma-separated list of host:port");
        }
    }

    @Test
    @DisplayName("several addresses with classic queues: a warning naming rabbitmq.queue-type and the fix")
    void classicOnCluster() {
        assertThat(settings(Map.of("rabbitmq.addresses", "n1:5672,n2:5672,n3:5672")).clusterWarning()).hasValueSatisfying(w ->
                assertThat(w).contains("'rabbitmq.addresses' names 3 nodes", "'rabbitmq.queue-type' is 'classic'",
                        "Set rabbitmq.queue-type=quorum"));
        assertThat(settings(Map.of("rabbitmq.addresses", "n1:5672")).clusterWarning())
                .as("one address is not a cluster as far as the adapter can tell").isEmpty();
    }
}
