package io.switchboard.rocketmq.internal;

import io.switchboard.spi.RecordListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RocketMQ's orderly listener, handing each queue's messages to core in offset order from one
 * thread at a time, as {@link RecordListener} requires.
 *
 * <p>At-least-once and exactly-once: the consume thread (one of RocketMQ's, never a network
 * thread) waits until core has settled the batch. All acked: {@code SUCCESS}, and the queue's
 * offset moves past the batch. Some returned (nacked, or unsettled when the consumer closes):
 * those are sent back to the broker, which redelivers them from the group's retry topic with
 * their delivery count raised, and the batch still succeeds so the acked ones are not
 * redelivered; if sending back fails, {@code SUSPEND_CURRENT_QUEUE_A_MOMENT} redelivers the whole
 * batch. At-most-once: the offset after the batch is committed to the broker before any record
 * is handed out, and the listener returns without waiting.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
final class OrderlyHandoff implements MessageListenerOrderly {

    private static final Logger log = LoggerFactory.getLogger(OrderlyHandoff.class);
    /** Delay level 1 is one second: a returned record comes back soon, not after RocketMQ's 10 s default. */
    private static final int RETURN_DELAY_LEVEL = 1;
    private static final long PERMIT_WAIT_MILLIS = 50;

    private final String destination;
    private final boolean atMostOnce;
    private final boolean canSendBack;
    private final Semaphore inFlight;
    private final AtomicInteger activeCalls = new AtomicInteger();
    private volatile DefaultMQPushConsumer consumer;
    private volatile RecordListener listener;
    private volatile boolean stopped;
    private volatile boolean closing;

    /**
     * @param canSendBack false for a broadcast subscriber, which has no retry topic: returned
     *     records are redelivered locally with their batch
     */
    OrderlyHandoff(String destination, boolean atMostOnce, boolean canSendBack, int maxInFlight) {
        this.destination = destination;
        this.atMostOnce = atMostOnce;
        this.canSendBack = canSendBack;
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

    /** Stops waiting for settlements, returns what is unsettled, and waits for consume threads to leave. */
    void close(long timeoutMillis) {
        stopped = true;
        closing = true;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (activeCalls.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> messages, ConsumeOrderlyContext context) {
        activeCalls.incrementAndGet();
        try {
            if (stopped) {
                return suspend(context);
            }
            return atMostOnce ? handOffAtMostOnce(messages, context) : handOff(messages, context);
        } finally {
            activeCalls.decrementAndGet();
        }
    }

    private ConsumeOrderlyStatus handOff(List<MessageExt> messages, ConsumeOrderlyContext context) {
        Batch batch = new Batch(inFlight, true);
        List<RocketMqRecord> handed = new ArrayList<>(messages.size());
        for (MessageExt message : messages) {
            if (!acquirePermit()) {
                break;
            }
            RocketMqRecord record = new RocketMqRecord(message, destination, batch);
            batch.handing();
            handed.add(record);
            listener.onRecord(record);
        }
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
            return ConsumeOrderlyStatus.SUCCESS;
        }
        // Nothing acked: redeliver the batch as it is, in order. Some acked: return only the rest.
        return anyAcked && canSendBack ? sendBack(returned, context) : suspend(context);
    }

    private ConsumeOrderlyStatus handOffAtMostOnce(List<MessageExt> messages, ConsumeOrderlyContext context) {
        MessageQueue queue = context.getMessageQueue();
        long next = messages.get(messages.size() - 1).getQueueOffset() + 1;
        try {
            consumer.getOffsetStore().updateConsumeOffsetToBroker(queue, next, false);
        } catch (Exception e) {
            log.warn("Could not commit offset {} of {} before handling (at-most-once); retrying the batch: {}", next,
                    queue, e.toString());
            return suspend(context);
        }
        Batch batch = new Batch(inFlight, false);
        for (MessageExt message : messages) {
            while (!acquirePermit()) {
                if (closing) {
                    log.debug("At-most-once subscription to '{}' closed: dropping the rest of a batch", destination);
                    return ConsumeOrderlyStatus.SUCCESS;
                }
            }
            batch.handing();
            listener.onRecord(new RocketMqRecord(message, destination, batch));
        }
        return ConsumeOrderlyStatus.SUCCESS;
    }

    /** Sends returned records to the group's retry topic; the batch then succeeds. */
    private ConsumeOrderlyStatus sendBack(List<MessageExt> returned, ConsumeOrderlyContext context) {
        String broker = context.getMessageQueue().getBrokerName();
        for (MessageExt message : returned) {
            try {
                consumer.sendMessageBack(message, RETURN_DELAY_LEVEL, broker);
            } catch (Exception e) {
                log.warn("Could not return message {} of '{}' to the broker ({}); redelivering its whole batch",
                        message.getMsgId(), destination, e.toString());
                return suspend(context);
            }
        }
        log.debug("Returned {} message(s) of '{}' to the broker for redelivery", returned.size(), destination);
        return ConsumeOrderlyStatus.SUCCESS;
    }

    private ConsumeOrderlyStatus suspend(ConsumeOrderlyContext context) {
        context.setSuspendCurrentQueueTimeMillis(closing ? 1000 : 200);
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
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
