package io.switchboard.internal.routing;

import io.micrometer.core.instrument.Counter;
import io.switchboard.Message;
import io.switchboard.Publisher;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shadow side of a mirror route: a bounded buffer and one daemon thread that publishes each
 * message to the shadow. The caller never waits for it: a full buffer (the shadow slow or down)
 * drops the message and counts it; a failed shadow publish is counted, never reported to the
 * caller. At most {@code capacity} messages are buffered or awaiting the shadow's acknowledgement.
 */
final class ShadowMirror<T> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShadowMirror.class);

    private record Pending<T>(Publisher<T> publisher, Message<T> message) {}

    private final String destination;
    private final BlockingQueue<Pending<T>> queue;
    private final Semaphore window;
    private final ShadowCheck check;
    private final Counter[] counters;
    private final Thread thread;
    private volatile boolean running = true;

    /** counters: sent, failed, dropped (entries may be null). */
    ShadowMirror(String destination, int capacity, ShadowCheck check, Counter[] counters) {
        this.destination = destination;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.window = new Semaphore(capacity);
        this.check = check;
        this.counters = counters;
        this.thread = new Thread(this::run, "switchboard-shadow-" + destination);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Hands a message to the shadow, or drops and counts it when the buffer is full. Never blocks. */
    void offer(Publisher<T> shadow, Message<T> message) {
        check.shadowOffered.increment();
        if (shadow == null || !window.tryAcquire()) {
            dropped();
            return;
        }
        if (!queue.offer(new Pending<>(shadow, message))) {
            window.release();
            dropped();
        }
    }

    private void dropped() {
        check.shadowDropped.increment();
        count(2);
    }

    private void count(int which) {
        Counter c = counters[which];
        if (c != null) {
            c.increment();
        }
    }

    private void run() {
        while (running || !queue.isEmpty()) {
            Pending<T> p;
            try {
                p = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (p == null) {
                continue;
            }
            try {
                p.publisher().publish(p.message()).whenComplete((r, error) -> {
                    window.release();
                    if (error == null) {
                        check.shadowSent.increment();
                        count(0);
                    } else {
                        failed(error);
                    }
                });
            } catch (RuntimeException e) {
                window.release();
                failed(e);
            }
        }
    }

    private void failed(Throwable error) {
        check.shadowFailed.increment();
        count(1);
        log.debug("Shadow publish to '{}' failed", destination, error);
    }

    /** Stops taking messages; what is buffered is sent for up to 2 s. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
        }
    }
}
