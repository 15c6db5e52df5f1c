package io.switchboard.bench.driver;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.springframework.amqp.rabbit.connection.CorrelationData;

/**
 * The window of unconfirmed sends of one Spring RabbitMQ producer (the Spring AMQP and Spring
 * Cloud Stream peers): at most {@code max-outstanding-confirms} (default 1,000) in flight, as on the
 * native side; each send acknowledged when its {@link CorrelationData}'s future says ack (a nack or
 * a returned message fails it).
 */
final class RabbitConfirmWindow {

    private final int size;
    private final Semaphore window;

    RabbitConfirmWindow(java.util.Map<String, String> rabbitProperties) {
        this.size = Integer.parseInt(rabbitProperties.getOrDefault("max-outstanding-confirms", "1000"));
        this.window = new Semaphore(size);
    }

    /**
     * Publishes one send with a confirm: waits for room in the window, then publishes with the send's
     * correlation, which completes {@code callback} when its confirm comes; a publish that throws
     * fails the callback at once and frees its room.
     */
    void publish(BenchProducer.SendCallback callback, java.util.function.Consumer<CorrelationData> publisher) {
        CorrelationData correlation = null;
        try {
            window.acquire();
            correlation = correlated(callback);
            publisher.accept(correlation);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            callback.done(e);
        } catch (RuntimeException e) {
            if (correlation != null) {
                window.release(); // not published: no confirm will come
            }
            callback.done(e);
        }
    }

    private CorrelationData correlated(BenchProducer.SendCallback callback) {
        CorrelationData correlation = new CorrelationData();
        correlation.getFuture().whenComplete((confirm, error) -> {
            window.release();
            if (error != null) {
                callback.done(error);
            } else if (!confirm.ack()) {
                callback.done(new IOException("nacked by RabbitMQ: " + confirm.reason()));
            } else if (correlation.getReturned() != null) {
                callback.done(new IOException("returned by RabbitMQ: " + correlation.getReturned().getReplyText()));
            } else {
                callback.done(null);
            }
        });
        return correlation;
    }

    /** Waits (30 s at most) until every send was confirmed. */
    void awaitConfirms() {
        try {
            if (window.tryAcquire(size, 30, TimeUnit.SECONDS)) {
                window.release(size);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
