package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ at an address where no server answers")
class RabbitUnreachableTest {

    // Not a speed assertion: a guard so that a hang fails the test instead of stalling the build.
    private static final Duration HANG_GUARD = Duration.ofSeconds(30);

    @Test
    @DisplayName("a closed port fails the first publisher at once, naming the masked URI and how to start the server")
    void closedPort() {
        Assertions.assertTimeoutPreemptively(HANG_GUARD, () -> {
            try (Switchboard sb = Switchboard.builder().broker("rabbitmq")
                    .property("rabbitmq.uri", "amqp://guest:secret-pw@127.0.0.1:1/").build()) {
                assertThatThrownBy(() -> sb.publisher("t1", Codec.utf8()).build())
                        .isInstanceOf(SwitchboardException.class)
                        .hasMessageContaining("Cannot connect to RabbitMQ at amqp://guest:******@127.0.0.1:1/")
                        .hasMessageContaining("rabbitmq-server -detached")
                        .hasMessageNotContaining("secret-pw");
            }
        });
    }

    @Test
    @DisplayName("a silent peer (connection accepted, no bytes) fails within rabbitmq.connect-timeout instead of hanging")
    void silentPeer() {
        RabbitMqServer server = RabbitMqServer.local().require();
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port())) {
            proxy.halfOpen();
            Assertions.assertTimeoutPreemptively(HANG_GUARD, () -> {
                try (Switchboard sb = Switchboard.builder().broker("rabbitmq")
                        .property("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/")
                        .property("rabbitmq.connect-timeout", "2s").build()) {
                    assertThatThrownBy(() -> sb.subscriber("t1", Codec.utf8()).group("g").subscribe((m, c) -> { }))
                            .isInstanceOf(SwitchboardException.class)
                            .hasMessageContaining("Cannot connect to RabbitMQ at amqp://guest:******@127.0.0.1:" + proxy.port())
                            .hasMessageContaining("no AMQP answer within PT2S (property rabbitmq.connect-timeout)");
                }
            });
        }
    }
}
