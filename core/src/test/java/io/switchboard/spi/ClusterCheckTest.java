package io.switchboard.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ClusterCheckTest {

    @Test
    void warnsByDefaultAndRefusesWhenAsked() {
        assertThat(ClusterCheck.of(new BrokerConfig("a", "kafka", Map.of()))).isEqualTo(ClusterCheck.WARN);
        ClusterCheck refuse = ClusterCheck.of(new BrokerConfig("a", "kafka", Map.of(ClusterCheck.PROPERTY, " Refuse ")));
        assertThat(refuse).isEqualTo(ClusterCheck.REFUSE);
        assertThatThrownBy(() -> refuse.report(LoggerFactory.getLogger(ClusterCheckTest.class), "topic 't' has one replica; set x=3"))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("topic 't' has one replica; set x=3")
                .hasMessageContaining("switchboard.cluster-check=refuse");
        ClusterCheck.WARN.report(LoggerFactory.getLogger(ClusterCheckTest.class), "only logged");
    }

    @Test
    void namesTheAllowedValuesForAnythingElse() {
        assertThatThrownBy(() -> ClusterCheck.of(new BrokerConfig("b", "rabbitmq", Map.of(ClusterCheck.PROPERTY, "strict"))))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'b' (rabbitmq)")
                .hasMessageContaining("'switchboard.cluster-check' is 'strict'")
                .hasMessageContaining("'warn'").hasMessageContaining("'refuse'");
    }
}
