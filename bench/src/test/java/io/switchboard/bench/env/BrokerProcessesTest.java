package io.switchboard.bench.env;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BrokerProcessesTest {

    @Test
    @DisplayName("the local RabbitMQ server's Erlang VM is found by its boot arguments; a remote URI finds nothing")
    void findsTheLocalRabbitServer() {
        OptionalLong pid = BrokerProcesses.localRabbitServer(BrokerEnvironment.DEFAULT_RABBIT_URI);
        assertThat(pid).as("a beam.smp booting rabbit (start it with `rabbitmq-server -detached`)").isPresent();
        ProcessHandle server = ProcessHandle.of(pid.getAsLong()).orElseThrow();
        assertThat(server.info().command().orElse("")).endsWith("beam.smp");
        assertThat(BrokerProcesses.localRabbitServer("amqp://guest:guest@rabbit.example.com:5672/")).isEmpty();
        assertThat(BrokerProcesses.isRabbitServer(ProcessHandle.current())).isFalse();
    }
}
