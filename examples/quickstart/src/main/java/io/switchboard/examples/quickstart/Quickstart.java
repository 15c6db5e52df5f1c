package io.switchboard.examples.quickstart;

import static java.util.concurrent.TimeUnit.SECONDS;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Publish and subscribe. {@code -Dbroker=kafka -Dkafka.bootstrap.servers=host:9092} runs the same
 * code on Kafka ({@code rabbitmq} with {@code rabbitmq.uri}, {@code rocketmq} with
 * {@code rocketmq.namesrv-addr}); without properties it runs on the in-memory broker.
 * {@code -Ddestination=name} changes the destination (default {@code quickstart-orders}).
 */
public final class Quickstart {

    private Quickstart() {}

    /** Entry point: configuration from system properties. */
    public static void main(String[] args) throws Exception {
        System.out.println(run(System.getProperties()));
    }

    // tag::quickstart[]
    static String run(Properties config) throws Exception {
        Switchboard.Builder builder = Switchboard.builder().broker(config.getProperty("broker", "memory"));
        config.stringPropertyNames().stream().filter(k -> k.matches("(kafka|rabbitmq|rocketmq|switchboard)\\..+"))
                .forEach(k -> builder.property(k, config.getProperty(k)));
        try (Switchboard sb = builder.build()) {
            List<String> billed = new CopyOnWriteArrayList<>();
            String destination = config.getProperty("destination", "quickstart-orders");
            Subscription billing = sb.subscriber(destination, Codec.utf8())
                    .group("billing")                        // competing consumers; .broadcast() for fan-out
                    .delivery(Delivery.AT_LEAST_ONCE)        // AT_MOST_ONCE, AT_LEAST_ONCE, EXACTLY_ONCE
                    .concurrency(2)                          // per-key order is kept
                    .subscribe((message, context) -> billed.add(message.key() + "/" + message.payload()));
            billing.ready().toCompletableFuture().get(30, SECONDS);

            Publisher<String> orders = sb.publisher(destination, Codec.utf8()).build();
            for (int i = 0; i < 10; i++) {                   // key = customer: per-customer order
                orders.publish(Message.of("customer-" + i % 3, "order-" + i)).toCompletableFuture().get(30, SECONDS);
            }
            for (int waited = 0; billed.size() < 10 && waited < 300; waited++) {
                Thread.sleep(100);
            }
            return "Billed " + billed.size() + " of 10 orders on " + sb.brokerId() + ": " + billed;
        }
    }
    // end::quickstart[]
}
