package io.switchboard.it.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.testkit.fault.ChildJvms;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of an application between its commits and their relay: the application (a JVM of its own) commits orders
 * through the outbox faster than its relay sends them and is killed; the restarted application's relay publishes
 * every committed order.
 */
@Tag("fault")
@DisplayName("Outbox: kill -9 of the application between commit and relay, on Kafka and PostgreSQL")
class OutboxKillTest extends OutboxSupport {

    private ChildJvms child;

    @TempDir
    Path directory;

    @AfterEach
    void killChild() {
        if (child != null) {
            child.killAll();
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 6, unit = TimeUnit.MINUTES)
    @DisplayName("every committed message published after the restart: lost 0")
    void killBetweenCommitAndRelay() throws Exception {
        String orders = destination("kill");
        FaultLedger ledger = new FaultLedger("outbox-app-killed", "kafka");
        Switchboard consumer = closeAfter(Switchboard.builder().broker("kafka").properties(kafka()).build());
        consumer.subscriber(orders, Codec.utf8()).group("billing").subscribe((m, ctx) -> ledger.consumed(m.key(), m.payload()))
                .ready().toCompletableFuture().get(60, TimeUnit.SECONDS);

        List<String> args = new ArrayList<>(List.of("jdbc:postgresql://127.0.0.1:5432/test", table, orders,
                "kafka.bootstrap.servers=" + EmbeddedKafka.shared().bootstrapServers()));
        child = new ChildJvms("outbox application", directory, OutboxApplicationMain.class, List.of("-Xmx256m"));
        child.define(1, args);
        child.launch(1);
        // killed once it has committed 5,000 orders and its relay has sent some of them (its relay is slower than its commits)
        await("5,000 orders committed by the child and some relayed, in " + child.logOf(1)).atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100)).until(() -> committed().size() >= 100 && ledger.uniqueCount() > 0);
        child.kill(1);
        List<int[]> ranges = committed();
        long waiting = rows(table);
        for (int[] r : ranges) {
            for (int n = r[0]; n <= r[1]; n++) {
                ledger.published(Integer.toString(n));
                ledger.acked(Integer.toString(n));
            }
        }
        long relayedBefore = ledger.uniqueCount();
        assertThat(waiting).as("committed rows the killed application had not relayed").isPositive();

        Switchboard restarted = closeAfter(Switchboard.builder().broker("kafka").properties(kafka()).build());
        closeAfter(Outbox.builder(restarted, db).table(table).build());
        await("every committed order on Kafka").atMost(Duration.ofSeconds(180))
                .until(() -> rows(table) == 0 && ledger.lostCount() == 0);
        Thread.sleep(1000);
        // duplicates: the batch the killed relay had sent but not yet deleted is sent again (at-least-once across a crash)
        System.out.println(ledger.line() + " reordered=" + ledger.reorderedCount() + " waiting_at_kill=" + waiting
                + " received_before_restart=" + relayedBefore);
        assertThat(ledger.lostCount()).as("lost").isZero();
        assertThat(ledger.reorderedCount()).as("reordered").isZero();
    }

    /** The child's committed ranges, from its log. */
    private List<int[]> committed() throws Exception {
        List<int[]> ranges = new ArrayList<>();
        Path log = child.logOf(1);
        if (!Files.exists(log)) {
            return ranges;
        }
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("@@ committed ")) {
                String[] parts = line.split(" ");
                ranges.add(new int[] {Integer.parseInt(parts[2]), Integer.parseInt(parts[3])});
            }
        }
        return ranges;
    }
}
