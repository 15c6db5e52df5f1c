package io.switchboard.rocketmq;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.ExactlyOnceCrash;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once (emulated) across a crash on the shared embedded RocketMQ: a consumer JVM handling
 * exactly-once with a {@link io.switchboard.JdbcIdempotencyStore} on the local PostgreSQL, writing
 * each payload into an output table in the transaction that marks its id done, is killed with
 * {@code kill -9} mid-transaction; a successor in the same group finishes (see
 * {@link ExactlyOnceCrash}). Consumed concurrently, as in {@code RocketMqFaultTest}: an orderly
 * consumer's queues stay locked for the killed client for 60 s. Needs PostgreSQL at 127.0.0.1:5432
 * (database test, trust auth): {@code .ci/postgres-up.sh} starts it.
 */
@Tag("fault")
@DisplayName("RocketMQ exactly-once across a consumer crash")
class RocketMqExactlyOnceCrashTest {

    @Test
    @DisplayName("a consumer killed mid-transaction and a successor: lost 0, duplicates 0 in the output table")
    void consumerKilledMidTransaction(@TempDir Path dir) throws Exception {
        EmbeddedRocketMq rocketMq = EmbeddedRocketMq.shared();
        Map<String, String> properties = Map.of("rocketmq.namesrv-addr", rocketMq.nameServerAddress(),
                "rocketmq.consume-mode", "concurrently");
        try (Switchboard sb = Switchboard.builder().broker("rocketmq").properties(properties).build()) {
            String destination = "eos-killed-" + UUID.randomUUID().toString().substring(0, 8);
            sb.provisioning().ensureDestination(DestinationSpec.of(destination, 4));
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            ExactlyOnceCrash.run("rocketmq", properties, properties, destination, publisher, dir);
        }
    }
}
