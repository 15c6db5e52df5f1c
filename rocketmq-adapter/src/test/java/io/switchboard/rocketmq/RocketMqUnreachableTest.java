package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RocketMQ at a name server address where nothing answers")
class RocketMqUnreachableTest {

    @Test
    @DisplayName("the error says the name server is not reachable and how to fix it, not 'permissions'")
    void saysUnreachable() {
        try (Switchboard sb = Switchboard.builder().broker("rocketmq").property("rocketmq.namesrv-addr", "127.0.0.1:1")
                .property("rocketmq.admin-timeout", "2s").build()) {
            assertThatThrownBy(() -> sb.publisher("t1", Codec.utf8()).build())
                    .isInstanceOf(SwitchboardException.class)
                    .hasMessageContaining("RocketMQ name server 127.0.0.1:1")
                    .hasMessageContaining("not reachable")
                    .hasMessageContaining("rocketmq.namesrv-addr")
                    .hasMessageNotContaining("permissions");
        }
    }
}
