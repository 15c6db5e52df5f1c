package io.switchboard.examples.demo;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The built-in load: orders from 500 customers at {@code demo.load.rate} per second (0 turns it
 * off), paced from the intended send times, from when the application is ready until it stops.
 */
@Component
public class LoadGenerator implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LoadGenerator.class);

    private final OrderService orders;
    private final int rate;
    private final AtomicLong placed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean running;
    private Thread thread;

    /** A generator at {@code demo.load.rate} orders per second. */
    public LoadGenerator(OrderService orders, @Value("${demo.load.rate:200}") int rate) {
        this.orders = orders;
        this.rate = rate;
    }

    @Override
    public void start() {
        if (rate <= 0) {
            return;
        }
        running = true;
        thread = new Thread(this::run, "demo-load");
        thread.setDaemon(true);
        thread.start();
        log.info("Load generator: {} orders per second", rate);
    }

    private void run() {
        long interval = 1_000_000_000L / rate;
        long next = System.nanoTime();
        long i = 0;
        while (running) {
            try {
                orders.place("customer-" + (i++ % 500), 1000 + i % 9000).whenComplete((r, e) -> {
                    if (e == null) {
                        placed.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                });
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                log.warn("Could not place an order: {}", e.getMessage());
            }
            next += interval;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    @Override
    public void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Start after the listeners (the starter's lifecycle phase is lower), stop before them. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100;
    }

    /** Orders acknowledged. */
    public long placed() {
        return placed.get();
    }

    /** Orders that failed. */
    public long failed() {
        return failed.get();
    }
}
