package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Kafka at an address where no broker answers")
class KafkaUnreachableTest {

    @Test
    @DisplayName("the first use fails within kafka.connect-timeout, saying no broker answered at the address, with little log noise")
    void clearBoundedError() {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (Switchboard sb = Switchboard.builder().broker("kafka").property("kafka.bootstrap.servers", "127.0.0.1:1")
                .property("kafka.connect-timeout", "2s").build()) {
            assertThatThrownBy(() -> sb.publisher("t1", Codec.utf8()).build())
                    .isInstanceOf(SwitchboardException.class)
                    .hasMessageContaining("No Kafka broker answered at 127.0.0.1:1 within PT2S")
                    .hasMessageContaining("correct kafka.bootstrap.servers")
                    .hasMessageContaining("kafka.connect-timeout");
        } finally {
            System.setErr(saved);
        }
        long lines = captured.toString(StandardCharsets.UTF_8).lines().count();
        System.out.println("log lines while failing: " + lines);
        assertThat(lines).as("log lines written while failing: a few, not a retry loop's flood").isLessThan(20);
    }
}
