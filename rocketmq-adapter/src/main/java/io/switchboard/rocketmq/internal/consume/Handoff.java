package io.switchboard.rocketmq.internal.consume;

import io.switchboard.spi.RecordListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the messages of one call of RocketMQ's listener to core and settles them with the broker,
 * for either listener ({@link OrderlyListener}, {@link ConcurrentListener}).
 *
 * <p>At-least-once and exactly-once: the consume thread (one of RocketMQ's, never a network
 * thread) waits until core has settled the batch. All acked: the batch is done and the queue's
 * offset moves past it. Some returned (nacked, or unsettled when the consumer closes): those are
 * sent back to the broker, which redelivers them from the group's retry topic with their delivery
 * count raised, and the batch is still done so the acked ones are not redelivered; when nothing
 * was acked, or sending back fails, the listener has RocketMQ redeliver the whole batch.
 * At-most-once: the offset after the batch is committed to the broker before any record is
 * handed out, and the listener returns without waiting.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
final class Handoff {

    private static final Logger log = LoggerFactory.getLogger(Handoff.class);
    /** Delay level 1 is one second: a returned record comes back soon, not after RocketMQ's 10 s default. */
    static final int RETURN_DELAY_LEVEL = 1;
    private static final long PERMIT_WAIT_MILLIS = 50;

    private final String destination;
    private final boolean canSendBack;
    private final boolean queueOrdered;
    private final Semaphore inFlight;
    private final AtomicInteger activeCalls = new AtomicInteger();
    private volatile DefaultMQPushConsumer consumer;
    private volatile RecordListener listener;
    private volatile boolean stopped;
    private volatile boolean closing;

    /**
     * @param canSendBack false for a broadcast subscriber, which has no retry topic: returned
     *     records are redelivered locally with their batch
     * @param queueOrdered true when each queue's records reach core in offset order from one thread
     *     (the orderly listener): records then carry their queue as partition, which core orders by
     */
    Handoff(String destination, boolean canSendBack, boolean queueOrdered, int maxInFlight) {
        this.destination = destination;
        this.canSendBack = canSendBack;
        this.queueOrdered = queueOrdered;
        this.inFlight = new Semaphore(maxInFlight);
    }

    void start(DefaultMQPushConsumer consumer, RecordListener listener) {
        this.consumer = consumer;
        this.listener = listener;
    }

    /** No new records are handed out; batches already out wait for their settlements. */
    void stop() {
        stopped = true;
    }

    boolean stopped() {
        return stopped;
    }

    boolean closing() {
        return closing;
    }

    /** Stops waiting for settlements, returns what is unsettled, and waits for consume threads to leave. */
    void close(long timeoutMillis) {
        stopped = true;
        closing = true;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (activeCalls.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** Counts a consume thread in; pair with {@link #leave()}. */
    void enter() {
        activeCalls.incrementAndGet();
    }

    void leave() {
        activeCalls.decrementAndGet();
    }

    /**
     * Hands a batch to core and waits for its settlement (at-least-once, exactly-once).
     *
     * @return true when the batch is done (every record acked, or the returned ones sent back to
     *     the broker); false when RocketMQ must deliver the whole batch again
     */
    boolean deliver(List<MessageExt> messages, MessageQueue queue) {
        Batch batch = new Batch(inFlight, true);
        List<RocketMqRecord> handed = new ArrayList<>(messages.size());
        for (MessageExt message : messages) {
            if (!inFlight.tryAcquire()) {
                listener.onHandoffEnd(); // what is handed may be settled only now: it must not wait for the rest
                if (!acquirePermit()) {
                    break;
                }
            }
            RocketMqRecord record = new RocketMqRecord(message, destination, queueOrdered, batch);
            batch.handing();
            handed.add(record);
            listener.onRecord(record);
        }
        listener.onHandoffEnd(); // nothing more comes from this queue until these are settled
        batch.awaitSettled(() -> closing);
        List<MessageExt> returned = new ArrayList<>();
        boolean anyAcked = false;
        for (RocketMqRecord record : handed) {
            record.takeBack();
            if (record.state() == RocketMqRecord.ACKED) {
                anyAcked = true;
            } else {
                returned.add(record.message());
            }
        }
        returned.addAll(messages.subList(handed.size(), messages.size()));
        if (returned.isEmpty()) {
            return true;
        }
        // Nothing acked: redeliver the batch as it is, in order. Some acked: return only the rest.
        return anyAcked && canSendBack && sendBack(returned, queue.getBrokerName());
    }

    /**
     * At-most-once: commits the offset after the batch, then hands the batch to core without
     * waiting. False when the commit failed and the batch must be delivered again.
     */
    boolean deliverAtMostOnce(List<MessageExt> messages, MessageQueue queue) {
        long next = messages.get(messages.size() - 1).getQueueOffset() + 1;
        try {
            consumer.getOffsetStore().updateConsumeOffsetToBroker(queue, next, false);
        } catch (Exception e) {
            log.warn("Could not commit offset {} of {} before handling (at-most-once); retrying the batch: {}", next,
                    queue, e.toString());
            return false;
        }
        Batch batch = new Batch(inFlight, false);
        for (MessageExt message : messages) {
            if (!inFlight.tryAcquire()) {
                listener.onHandoffEnd();
                while (!acquirePermit()) {
                    if (closing) {
                        log.debug("At-most-once subscription to '{}' closed: dropping the rest of a batch", destination);
                        listener.onHandoffEnd();
                        return true;
                    }
                }
            }
            batch.handing();
            listener.onRecord(new RocketMqRecord(message, destination, queueOrdered, batch));
        }
        listener.onHandoffEnd();
        return true;
    }

    /** Sends returned records to the group's retry topic; false when one could not be sent. */
    private boolean sendBack(List<MessageExt> returned, String broker) {
        for (MessageExt message : returned) {
            try {
                consumer.sendMessageBack(message, RETURN_DELAY_LEVEL, broker);
            } catch (Exception e) {
                log.warn("Could not return message {} of '{}' to the broker ({}); redelivering its whole batch",
                        message.getMsgId(), destination, e.toString());
                return false;
            }
        }
        log.debug("Returned {} message(s) of '{}' to the broker for redelivery", returned.size(), destination);
        return true;
    }

    private boolean acquirePermit() {
        try {
            while (!inFlight.tryAcquire(PERMIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                if (stopped) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
