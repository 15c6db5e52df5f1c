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
    /** Ends the batch being collected: the client hands over no more until what it handed is settled. */
    private static final InboundRecord END_BATCH = new WakeUp();

    private final LinkedBlockingQueue<InboundRecord> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean finished;
    private final Consumer<InboundRecord> rejecter;

    /** A lane whose thread's CPU counts as the instance's client cost {@code cost} (when not null). */
    Lane(String name, Consumer<InboundRecord> processor, Consumer<InboundRecord> rejecter,
            io.switchboard.internal.comparison.ClientCost.Account cost) {
        this(name, rejecter, cost, processor, null, 1, 0);
    }

    /**
     * A lane that hands its records on in batches: up to {@code batchSize} at once, waiting at most
     * {@code batchWaitNanos} for more once it holds one. {@code batches} settles every record it is given, also when it
     * throws.
     */
    Lane(String name, Consumer<List<InboundRecord>> batches, int batchSize, long batchWaitNanos,
            Consumer<InboundRecord> rejecter, io.switchboard.internal.comparison.ClientCost.Account cost) {
        this(name, rejecter, cost, null, batches, batchSize, batchWaitNanos);
    }

    private Lane(String name, Consumer<InboundRecord> rejecter, io.switchboard.internal.comparison.ClientCost.Account cost,
            Consumer<InboundRecord> processor, Consumer<List<InboundRecord>> batches, int batchSize, long batchWaitNanos) {
        this.rejecter = rejecter;
        this.thread = new Thread(batches == null ? () -> run(processor, rejecter)
                : () -> runBatches(batches, batchSize, batchWaitNanos), name);
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
                if (!isMark(record)) {
                    rejecter.accept(record);
                }
                break;
            }
            if (isMark(record)) {
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

    private static boolean isMark(InboundRecord record) {
        return record == WAKE_UP || record == END_BATCH;
    }

    /** Ends the batch being collected, if any, once what is queued before this call has joined it (batch mode). */
    void endBatch() {
        queue.offer(END_BATCH);
    }

    /** How long a batch being collected sleeps between looks at its queue: 1 ms. */
    static final long COLLECT_SLICE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1);

    private void runBatches(Consumer<List<InboundRecord>> batches, int batchSize, long batchWaitNanos) {
        try {
            while (true) {
                InboundRecord first = queue.take();
                if (stopping) {
                    if (!isMark(first)) {
                        rejecter.accept(first);
                    }
                    break;
                }
                if (isMark(first)) {
                    continue;
                }
                List<InboundRecord> batch = new ArrayList<>(Math.min(batchSize, 1024));
                batch.add(first);
                collect(batch, batchSize, System.nanoTime() + batchWaitNanos);
                batch.removeIf(Lane::isMark);
                if (stopping || Thread.currentThread().isInterrupted()) {
                    batch.forEach(rejecter);
                    break;
                }
                try {
                    batches.accept(batch);
                } catch (RuntimeException | Error e) { // the batch processor settled what it was given
                    log.error("Unexpected failure while processing a batch of {} record(s)", batch.size(), e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finished = true;
        rejectLeftovers(rejecter);
    }

    /**
     * Adds queued records to {@code batch} until it holds {@code batchSize}, the deadline passes, no record came for a
     * slice ({@link #COLLECT_SLICE_NANOS}), or the lane stops. It sleeps a slice between looks rather than waking at
     * each record the client hands over one by one (a RabbitMQ delivery at a time), and a pause ends the batch: a
     * client that hands over no more until what it handed is settled (RocketMQ's orderly consumption) would otherwise
     * hold every batch for the whole wait.
     */
    private void collect(List<InboundRecord> batch, int batchSize, long deadline) {
        boolean slept = false;
        while (batch.size() < batchSize && !stopping) {
            int before = batch.size();
            queue.drainTo(batch, batchSize - batch.size());
            if (batch.size() > before && batch.removeIf(r -> r == END_BATCH)) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (batch.size() >= batchSize || left <= 0 || (slept && batch.size() == before)) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(left, COLLECT_SLICE_NANOS));
            slept = true;
            if (Thread.currentThread().isInterrupted()) {
                return; // the caller returns the batch to the broker
            }
        }
    }

    private void rejectLeftovers(Consumer<InboundRecord> rejecter) {
        List<InboundRecord> left = new ArrayList<>();
        queue.drainTo(left);
        for (InboundRecord record : left) {
            if (!isMark(record)) {
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
