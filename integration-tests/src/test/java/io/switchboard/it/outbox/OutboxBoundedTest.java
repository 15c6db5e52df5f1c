package io.switchboard.it.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.testkit.fault.ChildJvms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay's batches are bounded in bytes as well as rows: a backlog of 120 rows of 3 MiB (360 MiB, 500 rows a
 * batch by count) is relayed by a JVM with a 128 MiB heap, which a batch read by rows alone could not hold.
 */
@DisplayName("Outbox: a backlog of large rows relays in a small heap, on RabbitMQ and PostgreSQL")
class OutboxBoundedTest extends OutboxSupport {

    private static final int ROWS = 120;
    private static final int PAYLOAD = 3 * 1024 * 1024;

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
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    @DisplayName("120 rows of 3 MiB relayed by a 128 MiB heap: all received once, the relay alive, no OutOfMemoryError")
    void largeRowsInSmallHeap() throws Exception {
        String big = destination("big");
        Set<String> ids = ConcurrentHashMap.newKeySet();
        AtomicLong received = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        Switchboard consumer = closeAfter(Switchboard.builder().broker("rabbitmq").properties(rabbit()).build());
        consumer.subscriber(big, Codec.bytes()).group("billing").subscribe((m, ctx) -> {
            received.incrementAndGet();
            bytes.addAndGet(m.payload().length);
            ids.add(m.id());
        }).ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        // the backlog, written with the relay stopped
        try (Outbox writer = Outbox.builder(closeAfter(Switchboard.builder().broker("rabbitmq").properties(rabbit()).build()), db)
                .table(table).autoStart(false).build()) {
            byte[] payload = new byte[PAYLOAD];
            for (int n = 0; n < ROWS; n += 10) {
                try (Connection c = db.getConnection()) {
                    c.setAutoCommit(false);
                    for (int i = n; i < n + 10; i++) {
                        payload[0] = (byte) i;
                        writer.publish(c, big, Message.builder(payload.clone()).key("k" + i % 7).build());
                    }
                    c.commit();
                }
            }
        }
        assertThat(rows(table)).isEqualTo(ROWS);

        child = new ChildJvms("outbox relay", directory, OutboxRelayMain.class, List.of("-Xmx128m"));
        child.define(1, List.of("jdbc:postgresql://127.0.0.1:5432/test", table, "rabbitmq.uri=" + RABBIT.uriWithCredentials()));
        child.launch(1);
        await("the 120 large rows on RabbitMQ, relayed by " + child.logOf(1)).atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(200)).until(() -> ids.size() >= ROWS || outOfMemory());
        await().atMost(Duration.ofSeconds(30)).until(() -> rows(table) == 0 || outOfMemory());
        Thread.sleep(1000);
        boolean oom = outOfMemory();
        System.out.printf("outbox=batch-bytes broker=rabbitmq db=postgresql rows=%d payload=%d heap=128m received=%d unique=%d"
                + " mib=%d out_of_memory=%s lost=%d reordered=0%n", ROWS, PAYLOAD, received.get(), ids.size(),
                bytes.get() >> 20, oom, ROWS - ids.size());
        assertThat(oom).as("an OutOfMemoryError in the relay's JVM (" + child.logOf(1) + ")").isFalse();
        assertThat(ids).as("unique messages received").hasSize(ROWS);
        assertThat(rows(table)).isZero();
    }

    private boolean outOfMemory() throws Exception {
        Path log = child.logOf(1);
        return Files.exists(log) && Files.readString(log).contains("OutOfMemoryError");
    }
}
