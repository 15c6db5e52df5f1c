package io.switchboard.it.delay;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The application {@link DelayedSurvivesKillTest} kills: it subscribes (so that its group exists and, on Kafka, it
 * runs the destination's delay forwarder), publishes delayed messages whose payload is their due time, prints
 * {@code @@ published} and waits to be killed with {@code kill -9}.
 *
 * <p>Arguments: broker id, destination, count, delay in ms, then broker properties as {@code key=value}.
 */
public final class DelayedPublisherMain {

    private DelayedPublisherMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> props = new LinkedHashMap<>();
        for (int i = 4; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            props.put(kv[0], kv[1]);
        }
        String destination = args[1];
        int count = Integer.parseInt(args[2]);
        long delayMs = Long.parseLong(args[3]);
        Switchboard sb = Switchboard.builder().broker(args[0]).properties(props).build();
        sb.subscriber(destination, Codec.utf8()).group("g").subscribe((m, c) -> {
            throw new IllegalStateException("nothing may be due before this JVM is killed: " + m.payload());
        }).ready().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
        Publisher<String> pub = sb.publisher(destination, Codec.utf8()).build();
        for (int i = 0; i < count; i++) {
            long due = System.currentTimeMillis() + delayMs + 100L * i;
            pub.publish(Message.builder(i + ":" + due).key("k" + i).delay(Duration.ofMillis(due - System.currentTimeMillis())).build())
                    .toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        System.out.println("@@ published");
        System.out.flush();
        Thread.sleep(Duration.ofMinutes(5).toMillis()); // killed long before; bounded all the same
    }
}
