package io.switchboard.rocketmq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.DestinationNameRule;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RocketMQ names")
class RocketMqNamesTest {

    private final DestinationNameRule rule = RocketMqNames.destinationRule();

    @Test
    @DisplayName("allow RocketMQ's topic characters and refuse dots, system topics and long names")
    void topics() {
        assertThat(rule.violation("orders-eu_1")).isEmpty();
        assertThat(rule.violation("orders.eu")).hasValueSatisfying(v -> assertThat(v).contains("RocketMQ"));
        assertThat(rule.violation("TBW102")).hasValueSatisfying(v -> assertThat(v).contains("reserved"));
        assertThat(rule.violation("rmq_sys_mine")).hasValueSatisfying(v -> assertThat(v).contains("rmq_sys_"));
        assertThat(rule.violation("x".repeat(128))).hasValueSatisfying(v -> assertThat(v).contains("127"));
        assertThat(RocketMqNames.deadLetterOf("orders")).isEqualTo("orders_dlq");
    }

    @Test
    @DisplayName("make one RocketMQ group per Switchboard group and destination, unless told otherwise")
    void groups() {
        assertThat(RocketMqNames.consumerGroup("billing", "orders", true)).isEqualTo("billing_orders");
        assertThat(RocketMqNames.consumerGroup("billing", "orders", false)).isEqualTo("billing");
        String a = RocketMqNames.consumerGroup("g".repeat(60), "a".repeat(100), true);
        String b = RocketMqNames.consumerGroup("g".repeat(60), "a".repeat(99) + "b", true);
        assertThat(a).hasSizeLessThanOrEqualTo(120).isEqualTo(RocketMqNames.consumerGroup("g".repeat(60), "a".repeat(100), true));
        assertThat(b).hasSizeLessThanOrEqualTo(120).isNotEqualTo(a);
    }

    @Test
    @DisplayName("refuse a group RocketMQ would refuse, naming it and the rule")
    void badGroup() {
        assertThatThrownBy(() -> RocketMqNames.consumerGroup("billing.eu", "orders", true))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'billing.eu'")
                .hasMessageContaining("letters, digits");
    }
}
