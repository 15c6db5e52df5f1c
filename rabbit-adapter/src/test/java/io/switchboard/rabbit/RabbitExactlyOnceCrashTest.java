package io.switchboard.rabbit;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.testkit.fault.ExactlyOnceCrash;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once (emulated) across a crash on the local RabbitMQ: a consumer JVM handling exactly-once
 * with a {@link io.switchboard.JdbcIdempotencyStore} on the local PostgreSQL, writing each payload
 * into an output table in the transaction that marks its id done, is killed with {@code kill -9}
 * mid-transaction; a successor in the same group finishes (see {@link ExactlyOnceCrash}). Needs
 * PostgreSQL at 127.0.0.1:5432 (database test, trust auth): {@code .ci/postgres-up.sh} starts it.
 */
@Tag("fault")
@DisplayName("RabbitMQ exactly-once across a consumer crash")
class RabbitExactlyOnceCrashTest extends RabbitTestSupport {

    @Test
    @DisplayName("a consumer killed mid-transaction and a successor: lost 0, duplicates 0 in the output table")
    void consumerKilledMidTransaction(@TempDir Path dir) throws Exception {
        String destination = scratch.name("eos");
        Publisher<String> publisher = switchboard().publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
        ExactlyOnceCrash.run("rabbitmq",
                Map.of("rabbitmq.uri", SERVER.uriWithCredentials(), "rabbitmq.connection-name", connectionName() + "-child"),
                Map.of("rabbitmq.uri", SERVER.uriWithCredentials(), "rabbitmq.connection-name", connectionName() + "-successor"),
                destination, publisher, dir);
    }
}
