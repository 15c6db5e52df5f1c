package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delayed messages sent and received: each payload is {@code <id>:<due epoch ms>}, and the handler notes when each
 * arrived, so a receiver in another Switchboard (or after a restart) checks the same due times. Counts a message
 * early when it arrived before its due time, lost when it never arrived, and reports the 99th percentile lateness.
 */
final class DelayLedger implements MessageHandler<String> {

    private final String name;
    private final Map<String, Long> due = new ConcurrentHashMap<>();
    private final Map<String, Long> arrived = new ConcurrentHashMap<>();
    /** Messages that arrived with a delay header, or stamped later than published (the forwarder's time). */
    private final Map<String, String> wrong = new ConcurrentHashMap<>();

    DelayLedger(String name) {
        this.name = name;
    }

    /** Publishes one message due {@code delay} from now, keyed by its id. */
    CompletableFuture<?> publish(Publisher<String> publisher, String id, Duration delay) {
        long at = System.currentTimeMillis() + delay.toMillis();
        due.put(id, at);
        return publisher.publish(Message.builder(id + ":" + at).key(id).deliverAt(Instant.ofEpochMilli(at)).build())
                .toCompletableFuture();
    }

    /** Publishes {@code count} messages {@code <prefix><i>}, due {@code firstMillis + i * stepMillis} from now, and waits for the acknowledgements. */
    void publishAll(Publisher<String> publisher, String prefix, int count, long firstMillis, long stepMillis) {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(publish(publisher, prefix + i, Duration.ofMillis(firstMillis + stepMillis * i)));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
    }

    @Override
    public void handle(Message<String> message, DeliveryContext context) {
        long now = System.currentTimeMillis();
        String[] parts = message.payload().split(":");
        if (arrived.putIfAbsent(parts[0], now) == null) {
            due.putIfAbsent(parts[0], Long.parseLong(parts[1]));
        }
        if (message.headers().keySet().stream().anyMatch(name -> name.startsWith("sb_delay_"))) {
            wrong.put(parts[0], "delay headers " + message.headers().keySet());
        } else if (message.timestamp().toEpochMilli() >= Long.parseLong(parts[1])) {
            wrong.put(parts[0], "timestamp " + message.timestamp() + " is not the publish time");
        }
    }

    long arrivedAt(String id) {
        Long at = arrived.get(id);
        return at == null ? Long.MAX_VALUE : at;
    }

    /** {@return the earliest due time of the messages published} */
    long firstDue() {
        return due.values().stream().mapToLong(Long::longValue).min().orElseThrow();
    }

    void awaitAll(Duration timeout) {
        await().atMost(timeout).until(() -> arrived.keySet().containsAll(due.keySet()));
    }

    /** Prints the figure line and checks none was early or lost. */
    void report(String extra) {
        List<Long> late = new ArrayList<>();
        int early = 0;
        int lost = 0;
        for (Map.Entry<String, Long> e : due.entrySet()) {
            Long at = arrived.get(e.getKey());
            if (at == null) {
                lost++;
            } else if (at < e.getValue()) {
                early++;
            } else {
                late.add(at - e.getValue());
            }
        }
        late.sort(null);
        long p99 = late.isEmpty() ? 0 : late.get(Math.min(late.size() - 1, (int) Math.ceil(late.size() * 0.99) - 1));
        long max = late.isEmpty() ? 0 : late.get(late.size() - 1);
        System.out.println("capability=delay broker=kafka test=" + name + " sent=" + due.size() + " received="
                + arrived.size() + " early=" + early + " late_p99_ms=" + p99 + " late_max_ms=" + max + " lost=" + lost
                + (extra.isEmpty() ? "" : " " + extra));
        assertThat(early).as("messages that arrived before their due time").isZero();
        assertThat(wrong).as("messages with delay headers or the forwarding time as their timestamp").isEmpty();
        assertThat(lost).as("messages never received").isZero();
    }
}
