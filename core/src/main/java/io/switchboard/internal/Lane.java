package io.switchboard.internal;

import io.switchboard.spi.InboundRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One handler thread with its own queue: records of one partition or key always go to the same
 * lane, so they are handled one at a time, in order. The queue is bounded by the adapter's
 * in-flight limit, not here.
 */
final class Lane {

    private static final Logger log = LoggerFactory.getLogger(Lane.class);
    private static final InboundRecord WAKE_UP = new WakeUp();

    private final LinkedBlockingQueue<InboundRecord> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean finished;
    private final Consumer<InboundRecord> rejecter;

    /** A lane whose thread's CPU counts as the instance's client cost {@code cost} (when not null). */
    Lane(String name, Consumer<InboundRecord> processor, Consumer<InboundRecord> rejecter,
            io.switchboard.internal.comparison.ClientCost.Account cost) {
        this.rejecter = rejecter;
        this.thread = new Thread(() -> run(processor, rejecter), name);
        this.thread.setDaemon(true);
        if (cost != null) {
            cost.own(thread);
        }
    }

    /** Waits between attempts; false when {@code stopping} turns true first (the record goes back to the broker). */
    static boolean pause(java.time.Duration wait, java.util.function.BooleanSupplier stopping) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!stopping.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(left, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50)));
        }
        return false;
    }

    void start() {
        thread.start();
    }

    void offer(InboundRecord record) {
        queue.add(record);
        if (finished) {
            // the thread is gone: whatever reached the queue after its last drain is returned here
            rejectLeftovers(rejecter);
        }
    }

    /** Finishes the record being handled, hands queued records to the rejecter, and ends the thread. */
    void stop() {
        stopping = true;
        queue.add(WAKE_UP);
    }

    void join(long millis) throws InterruptedException {
        thread.join(millis);
    }

    private void run(Consumer<InboundRecord> processor, Consumer<InboundRecord> rejecter) {
        while (true) {
            InboundRecord record;
            try {
                record = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (stopping) {
                if (record != WAKE_UP) {
                    rejecter.accept(record);
                }
                break;
            }
            if (record == WAKE_UP) {
                continue;
            }
            try {
                processor.accept(record);
            } catch (RuntimeException | Error e) {
                log.error("Unexpected failure while processing a record; it is returned to the broker", e);
                rejecter.accept(record);
            }
        }
        finished = true;
        rejectLeftovers(rejecter);
    }

    private void rejectLeftovers(Consumer<InboundRecord> rejecter) {
        List<InboundRecord> left = new ArrayList<>();
        queue.drainTo(left);
        for (InboundRecord record : left) {
            if (record != WAKE_UP) {
                rejecter.accept(record);
            }
        }
    }

    private static final class WakeUp implements InboundRecord {
        @Override
        public String destination() {
            return "";
        }

        @Override
        public int partition() {
            return -1;
        }

        @Override
        public long offset() {
            return -1;
        }

        @Override
        public String key() {
            return null;
        }

        @Override
        public java.util.Map<String, String> headers() {
            return java.util.Map.of();
        }

        @Override
        public byte[] payload() {
            return new byte[0];
        }

        @Override
        public int deliveryCount() {
            return 1;
        }

        @Override
        public void ack() {}

        @Override
        public void nack() {}
    }
}
