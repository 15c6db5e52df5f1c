package io.switchboard.it.closing;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An application that uses Switchboard the ordinary way and returns from {@code main} without
 * {@code System.exit}: on Kafka, RocketMQ and RabbitMQ in turn, it subscribes (a group with two
 * lanes, a broadcast subscriber), publishes, receives and closes its Switchboard with
 * try-with-resources. Its JVM must then exit on its own. Arguments: the Kafka bootstrap servers,
 * the RocketMQ name server, the RabbitMQ URI, a destination prefix.
 */
public final class ExitAfterCloseMain {

    private static final int MESSAGES = 5;

    private ExitAfterCloseMain() {
    }

    public static void main(String[] args) throws Exception {
        String prefix = args[3];
        roundTrip("kafka", Map.of("kafka.bootstrap.servers", args[0]), prefix + "_kafka");
        roundTrip("rocketmq", Map.of("rocketmq.namesrv-addr", args[1]), prefix + "_rocketmq");
        roundTrip("rabbitmq", Map.of("rabbitmq.uri", args[2]), prefix + "_rabbitmq");
        System.out.println("main returned");
    }

    private static void roundTrip(String broker, Map<String, String> properties, String destination) throws Exception {
        try (Switchboard sb = Switchboard.builder().broker(broker).properties(properties).build()) {
            CountDownLatch group = new CountDownLatch(MESSAGES);
            CountDownLatch broadcast = new CountDownLatch(MESSAGES);
            sb.subscriber(destination, Codec.utf8()).group("exit").concurrency(2)
                    .subscribe((m, c) -> group.countDown()).ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
            sb.subscriber(destination, Codec.utf8()).broadcast()
                    .subscribe((m, c) -> broadcast.countDown()).ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            for (int i = 0; i < MESSAGES; i++) {
                publisher.publish("m" + i).toCompletableFuture().get(60, TimeUnit.SECONDS);
            }
            if (!group.await(60, TimeUnit.SECONDS) || !broadcast.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(broker + ": the group received " + (MESSAGES - group.getCount())
                        + " and the broadcast subscriber " + (MESSAGES - broadcast.getCount()) + " of " + MESSAGES);
            }
        }
        System.out.println("closed the Switchboard on " + broker);
    }
}
