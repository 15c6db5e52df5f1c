package io.switchboard.it.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.routing.Route;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The outbox's relay as the switch point: the route at relay time decides the broker; replicas relay side by side. */
@DisplayName("Outbox across real brokers, on PostgreSQL")
class OutboxAcrossBrokersTest extends OutboxSupport {

    @Test
    @DisplayName("committed: once on Kafka, the route's broker; rolled back: nowhere; route moved to RabbitMQ while 10,000 rows wait: all on RabbitMQ, per-key order kept")
    void routeAtRelayTime() throws Exception {
        String orders = destination("orders");
        List<String> onKafka = consume("kafka", kafka(), orders);
        List<String> onRabbit = consume("rabbitmq", rabbit(), orders);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Switchboard app = closeAfter(Switchboard.builder().instance("kafka", "kafka", kafka()).instance("rabbit", "rabbitmq", rabbit())
                .route(orders, Route.single("kafka")).meterRegistry(meters).build());
        Outbox outbox = closeAfter(Outbox.builder(app, db).table(table).build());
        OutboxPublisher<String> writer = outbox.publisher(orders, Codec.utf8());

        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            writer.publish(c, io.switchboard.Message.of("k0", "-1"));
            c.rollback();
        }
        commit(writer, 0, 10, 5, 5);
        await().atMost(DRAIN).until(() -> onKafka.size() >= 10);

        outbox.stop();
        commit(writer, 10, 10_000, 100, 100);
        assertThat(rows(table)).as("rows waiting while the relay is stopped").isEqualTo(10_000);
        app.routing().update(orders, Route.single("rabbit"));
        outbox.start();
        await().atMost(DRAIN).until(() -> onRabbit.size() >= 10_000);
        Thread.sleep(1000); // a row sent twice, or to the old broker, would arrive by now
        long[] kafkaBooks = books(onKafka);
        long[] rabbitBooks = books(onRabbit);
        System.out.printf("outbox=route-at-relay-time db=postgresql committed=10010 rolled_back=1 kafka=%d rabbitmq=%d"
                + " rabbitmq_unique=%d rabbitmq_reordered=%d%n", kafkaBooks[0], rabbitBooks[0], rabbitBooks[1], rabbitBooks[2]);
        assertThat(onKafka).as("on Kafka: the 10 committed while the route named it, not the rolled-back one").hasSize(10)
                .noneMatch(line -> line.contains("/-1/"));
        assertThat(rabbitBooks).as("RabbitMQ: received, unique, reordered").containsExactly(10_000, 10_000, 0);
        assertThat(rows(table)).isZero();
    }

    @Test
    @DisplayName("three relaying replicas on Kafka, 10,000 messages committed while they run: none sent twice, per-key order kept")
    void threeReplicas() throws Exception {
        String orders = destination("replicas");
        List<String> got = consume("kafka", kafka(), orders);
        SimpleMeterRegistry[] meters = new SimpleMeterRegistry[3];
        Outbox[] replicas = new Outbox[3];
        for (int i = 0; i < 3; i++) {
            meters[i] = new SimpleMeterRegistry();
            Switchboard sb = closeAfter(Switchboard.builder().broker("kafka").properties(kafka()).build());
            replicas[i] = closeAfter(Outbox.builder(sb, db).table(table).batchSize(200).bucketsPerClaim(8).meterRegistry(meters[i])
                    .build());
        }
        for (int i = 0; i < 3; i++) {
            commit(replicas[i].publisher(orders, Codec.utf8()), i * 3_334, i == 2 ? 3_332 : 3_334, 200, 20);
        }
        await().atMost(DRAIN).until(() -> got.size() >= 10_000);
        Thread.sleep(1000);
        long[] b = books(got);
        double[] shares = new double[3];
        for (int i = 0; i < 3; i++) {
            shares[i] = meters[i].get("switchboard.outbox.relayed").counters().stream().mapToDouble(c -> c.count()).sum();
        }
        System.out.printf("outbox=three-replicas db=postgresql broker=kafka committed=10000 received=%d unique=%d duplicates=%d"
                + " reordered=%d relayed=%.0f/%.0f/%.0f%n", b[0], b[1], b[0] - b[1], b[2], shares[0], shares[1], shares[2]);
        assertThat(b).as("received, unique, reordered").containsExactly(10_000, 10_000, 0);
        assertThat(shares[0] + shares[1] + shares[2]).isEqualTo(10_000);
        assertThat(rows(table)).isZero();
    }
}
