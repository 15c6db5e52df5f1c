package io.switchboard.it.outbox;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.testkit.fault.PooledDataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An application in a JVM of its own for {@link OutboxKillTest}: commits orders "n" (key "k(n % 100)") through the
 * outbox in transactions of 50, with a slow relay (batches of 20 from one bucket), and prints
 * {@code @@ committed <from> <to>} after each commit, until killed. Arguments: jdbc url, table, destination, then
 * Switchboard properties as key=value.
 */
public final class OutboxApplicationMain {

    private OutboxApplicationMain() {}

    public static void main(String[] args) throws Exception {
        PooledDataSource db = new PooledDataSource(args[0], "postgres");
        Switchboard.Builder builder = Switchboard.builder().broker("kafka");
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            builder.property(kv[0], kv[1]);
        }
        Switchboard sb = builder.build();
        Outbox outbox = Outbox.builder(sb, db).table(args[1]).batchSize(20).bucketsPerClaim(1)
                .poll(Duration.ofMillis(50), Duration.ofMillis(200)).build();
        OutboxPublisher<String> writer = outbox.publisher(args[2], Codec.utf8());
        System.out.println("@@ started");
        for (int from = 0; from < 1_000_000; from += 50) {
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                List<Message<String>> batch = new ArrayList<>(50);
                for (int n = from; n < from + 50; n++) {
                    batch.add(Message.of("k" + n % 100, Integer.toString(n)));
                }
                writer.publishAll(c, batch);
                c.commit();
            }
            System.out.println("@@ committed " + from + " " + (from + 49));
            System.out.flush();
            Thread.sleep(5);
        }
    }
}
