package io.switchboard.it.outbox;

import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.testkit.fault.PooledDataSource;
import java.time.Duration;

/**
 * A relay in a JVM of its own, for {@link OutboxBoundedTest}: sends the rows of an outbox table (batches of the default
 * 500 rows and 16 MiB) through RabbitMQ until killed. Arguments: jdbc url, table, then Switchboard properties as
 * key=value. Prints {@code @@ relaying} once started.
 */
public final class OutboxRelayMain {

    private OutboxRelayMain() {}

    public static void main(String[] args) throws Exception {
        PooledDataSource db = new PooledDataSource(args[0], "postgres");
        Switchboard.Builder builder = Switchboard.builder().broker("rabbitmq");
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            builder.property(kv[0], kv[1]);
        }
        Switchboard sb = builder.build();
        Outbox.builder(sb, db).table(args[1]).poll(Duration.ofMillis(20), Duration.ofMillis(200)).build();
        System.out.println("@@ relaying");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
