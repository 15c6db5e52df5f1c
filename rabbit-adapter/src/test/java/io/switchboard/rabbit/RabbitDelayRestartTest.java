package io.switchboard.rabbit;

import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.testkit.rabbit.RabbitCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Delayed records wait through a restart of the broker: a RabbitMQ node of its own (the shared local server is
 * never restarted), records published to the classic and the quorum delay levels, every Switchboard closed, the
 * node stopped and started again on its data, a new Switchboard receives them all, none early.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("cluster")
@Tag("fault")
@DisplayName("RabbitMQ delayed delivery through a broker restart")
class RabbitDelayRestartTest {

    @Test
    @DisplayName("records waiting in the delay levels survive a restart of the node and arrive, none early")
    void delayedRecordsSurviveABrokerRestart() throws Exception {
        try (RabbitCluster node = RabbitCluster.start(1)) {
            DelayProbe classic = new DelayProbe();
            DelayProbe quorum = new DelayProbe();
            try (Switchboard before = open(node, "classic"); Switchboard beforeQuorum = open(node, "quorum")) {
                classic.publish(before.publisher("restart-classic", Codec.utf8()).build(), 40, Duration.ofSeconds(1),
                        Duration.ofSeconds(30), 37);
                quorum.publish(beforeQuorum.publisher("restart-quorum", Codec.utf8()).build(), 40, Duration.ofSeconds(1),
                        Duration.ofSeconds(30), 38);
            }
            long stopped = System.nanoTime();
            node.restart(0);
            System.out.println("RabbitDelayRestartTest: node down and up again in "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped) + " ms");

            try (Switchboard after = open(node, "classic"); Switchboard afterQuorum = open(node, "quorum")) {
                after.subscriber("restart-classic", Codec.utf8()).group("g").subscribe(classic).ready()
                        .toCompletableFuture().get(60, TimeUnit.SECONDS);
                afterQuorum.subscriber("restart-quorum", Codec.utf8()).group("g").subscribe(quorum).ready()
                        .toCompletableFuture().get(60, TimeUnit.SECONDS);
                classic.awaitAll(Duration.ofSeconds(90), "classic levels, broker restarted while they waited");
                quorum.awaitAll(Duration.ofSeconds(90), "quorum levels, broker restarted while they waited");
            }
        }
    }

    private static Switchboard open(RabbitCluster node, String queueType) {
        return Switchboard.builder().broker("rabbitmq")
                .property("rabbitmq.uri", node.uri(0))
                .property("rabbitmq.queue-type", queueType)
                .property("rabbitmq.required-groups", "g")
                .build();
    }
}
