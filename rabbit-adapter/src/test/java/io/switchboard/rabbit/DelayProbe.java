package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.DeliveryContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Publishes delayed records whose payload carries their id and due time, receives them, and reports
 * early (before due), late (p99 of received minus due), lost and duplicate counts as a
 * {@code capability=delay ...} line.
 */
final class DelayProbe implements MessageHandler<String> {

    private final Map<Integer, Long> due = new ConcurrentHashMap<>();
    private final Map<Integer, Long> received = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> deliveries = new ConcurrentHashMap<>();

    /**
     * Publishes {@code count} records, delays spread from {@code min} to {@code max} (seeded), every third one
     * with {@code deliverAt}, keys {@code k0..k4}; waits for every receipt.
     */
    void publish(Publisher<String> publisher, int count, Duration min, Duration max, long seed) throws Exception {
        Random random = new Random(seed);
        List<CompletableFuture<?>> sent = new ArrayList<>();
        int base = due.size();
        for (int i = base; i < base + count; i++) {
            long delay = min.toMillis() + (long) (random.nextDouble() * (max.toMillis() - min.toMillis()));
            long now = System.currentTimeMillis();
            Message.Builder<String> message = Message.builder(i + "").key("k" + i % 5);
            if (i % 3 == 0) {
                message.deliverAt(Instant.ofEpochMilli(now + delay));
            } else {
                message.delay(Duration.ofMillis(delay));
            }
            due.put(i, now + delay);
            sent.add(publisher.publish(message.build()).toCompletableFuture());
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    @Override
    public void handle(Message<String> message, DeliveryContext context) {
        int id = Integer.parseInt(message.payload());
        received.putIfAbsent(id, System.currentTimeMillis());
        deliveries.merge(id, 1, Integer::sum);
    }

    /** Waits (bounded) until every published record was received, prints the line and checks none was early or lost. */
    void awaitAll(Duration atMost, String what) {
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> received.size() >= due.size());
        long early = due.keySet().stream().filter(id -> received.get(id) < due.get(id)).count();
        long[] late = due.keySet().stream().mapToLong(id -> received.get(id) - due.get(id)).sorted().toArray();
        long p99 = late[Math.min(late.length - 1, (int) Math.ceil(late.length * 0.99) - 1)];
        long lost = due.keySet().stream().filter(id -> !received.containsKey(id)).count();
        System.out.println("capability=delay broker=rabbitmq sent=" + due.size() + " received=" + received.size()
                + " early=" + early + " late_p50_ms=" + late[late.length / 2] + " late_p99_ms=" + p99 + " lost=" + lost
                + " (" + what + ")");
        assertThat(early).as("records delivered before they were due").isZero();
        assertThat(lost).isZero();
        assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(due.keySet());
    }

    /** {@return the records received more than once (at-least-once may redeliver after a crash)} */
    long redelivered() {
        return deliveries.values().stream().filter(n -> n > 1).count();
    }
}
