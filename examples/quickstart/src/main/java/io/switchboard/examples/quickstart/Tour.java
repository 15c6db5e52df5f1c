package io.switchboard.examples.quickstart;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A longer tour than {@link Quickstart}: consumer group, retries, a poison message dead-lettered, and what each handler saw. Runs on the in-memory
 * broker by default; pass another adapter id and {@code key=value} properties to switch broker:
 * {@code Tour kafka kafka.bootstrap.servers=127.0.0.1:9092}.
 */
public final class Tour {

    private Tour() {}

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        String broker = args.length > 0 ? args[0] : "memory";
        Switchboard.Builder builder = Switchboard.builder().broker(broker);
        for (int i = 1; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            builder.property(kv[0], kv.length > 1 ? kv[1] : "");
        }
        int count = 10;
        try (Switchboard sb = builder.build()) {
            System.out.printf("Broker %s, capabilities %s%n", sb.brokerId(), sb.capabilities());
            CountDownLatch done = new CountDownLatch(count + 1);
            Subscription dlq = sb.subscriber("quickstart.orders.dlq", Codec.utf8()).group("ops").subscribe((m, c) -> {
                System.out.printf("  dead letter: %s after %s attempts (%s)%n", m.payload(), m.headers().get("sb_attempts"),
                        m.headers().get("sb_error_message"));
                done.countDown();
            });
            Subscription orders = sb.subscriber("quickstart.orders", Codec.utf8())
                    .group("billing")
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .concurrency(2)
                    .retry(RetryPolicy.fixed(3, Duration.ofMillis(50)))
                    .subscribe((m, c) -> {
                        if (m.payload().contains("poison")) {
                            throw new IllegalArgumentException("cannot bill " + m.payload());
                        }
                        System.out.printf("  handled %-10s key=%s partition=%d attempt=%d thread=%s%n", m.payload(), m.key(),
                                c.partition(), c.attempt(), Thread.currentThread().getName());
                        done.countDown();
                    });
            orders.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
            dlq.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);

            Publisher<String> publisher = sb.publisher("quickstart.orders", Codec.utf8()).build();
            List<PublishReceipt> receipts = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                receipts.add(publisher.publish(Message.of("customer-" + (i % 3), "order-" + i)).toCompletableFuture().get());
            }
            publisher.publish(Message.of("customer-x", "poison-pill")).toCompletableFuture().get();
            System.out.printf("Published %d messages (+1 poison) to %s; first id %s%n", count, sb.brokerId(),
                    receipts.get(0).messageId());
            boolean all = done.await(60, TimeUnit.SECONDS);
            System.out.printf("%s: %d handled, poison message dead-lettered: %s%n", all ? "OK" : "INCOMPLETE",
                    count - Math.max(0, done.getCount() - 1), all);
            if (!all) {
                System.exit(1);
            }
        }
    }
}
