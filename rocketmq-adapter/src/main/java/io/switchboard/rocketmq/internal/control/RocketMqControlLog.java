package io.switchboard.rocketmq.internal.control;

import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.rocketmq.internal.publish.RetriedSend;
import io.switchboard.rocketmq.internal.publish.SendFailures;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.DaemonThreads;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A control log on RocketMQ: one queue of topic {@code name}, so the broker keeps its records in
 * one total order. An append is an asynchronous send to that queue (message keys and the user
 * property {@value #KEY} carry the record's key), done on {@code SEND_OK}. A follower reads the
 * queue from its minimum offset with the pull API ({@link DefaultMQPullConsumer}, long polling),
 * on a daemon thread of its own that passes each record to the listener in queue order. It stores
 * no offsets (its consumer group {@code sb_ctl_<name>_<random>} is its own): a follower always
 * starts from the beginning.
 *
 * <p>Retention: RocketMQ does not compact; the broker deletes whole commit-log files older than its
 * {@code fileReservedTime} (72 hours by default) or when the disk fills, whatever their keys. Core
 * re-appends its full state periodically, well within that time; a follower whose position was
 * deleted under it goes on from the queue's new minimum offset.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
final class RocketMqControlLog implements ControlLog {

    /** The user property carrying a record's key. */
    static final String KEY = "sb_control_key";

    private static final Logger log = LoggerFactory.getLogger(RocketMqControlLog.class);
    private static final int BATCH = 32;
    /** A control record's retried append is not a publish: no client event. */
    private static final Consumer<Throwable> NO_REPORT = cause -> { };
    /**
     * How long the broker holds a pull on an idle queue; its hold service checks held pulls every
     * 5 s, so an idle follower's pull is answered 1 to 6 s later (a new record answers it at once).
     */
    private static final long SUSPEND_MILLIS = 1_000;
    private static final long PULL_TIMEOUT_MILLIS = 10_000;
    /** Connected: the last pull succeeded, within the longest an idle pull is held and then some. */
    private static final long CONNECTED_NANOS = TimeUnit.SECONDS.toNanos(12);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final MessageQueue queue;
    private final Producers producers;
    private final RocketMqSettings settings;
    private final String clientName;
    private final Consumer<ControlLog> onClose;
    private final AtomicBoolean following = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private volatile DefaultMQPullConsumer consumer;
    private volatile Thread thread;
    private volatile long lastPull;
    private volatile boolean pulled;

    RocketMqControlLog(MessageQueue queue, Producers producers, RocketMqSettings settings, String clientName,
            Consumer<ControlLog> onClose) {
        this.queue = queue;
        this.producers = producers;
        this.settings = settings;
        this.clientName = clientName;
        this.onClose = onClose;
    }

    @Override
    public CompletionStage<Void> append(String key, byte[] value) {
        if (key == null || key.isEmpty() || key.indexOf('\u0001') >= 0 || key.indexOf('\u0002') >= 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("Control record key '" + key
                    + "' must be non-empty and free of the characters \\u0001 and \\u0002"));
        }
        String topic = queue.getTopic();
        Message message = new Message(topic, value);
        message.setKeys(key);
        message.putUserProperty(KEY, key);
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            // retried after a transient failure as a publisher's sends are (rocketmq-client's own retry is off)
            new RetriedSend(settings.sendTimeout(), NO_REPORT) {
                @Override
                protected void send(long timeoutMillis) throws Exception {
                    producers.plain().send(message, queue, this, timeoutMillis);
                }

                @Override
                public void onSuccess(SendResult result) {
                    if (result.getSendStatus() == SendStatus.SEND_OK) {
                        done.complete(null);
                    } else {
                        done.completeExceptionally(SendFailures.notDurable(result.getSendStatus(), topic));
                    }
                }

                @Override
                protected void failed(Throwable error) {
                    done.completeExceptionally(SendFailures.of(error, topic, settings.nameServer(), settings.credentials()));
                }
            }.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done.completeExceptionally(new SwitchboardException("Interrupted while appending to control log '" + topic + "'", e));
        } catch (Exception e) {
            done.completeExceptionally(SendFailures.of(e, topic, settings.nameServer(), settings.credentials()));
        }
        return done;
    }

    @Override
    public CompletionStage<Void> follow(Listener listener) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("Control log '" + queue.getTopic() + "' is closed"));
        }
        if (!following.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new IllegalStateException("Control log '" + queue.getTopic()
                    + "' is followed already; follow() is called once"));
        }
        String group = "sb_ctl_" + queue.getTopic() + "_" + UUID.randomUUID().toString().substring(0, 8);
        DefaultMQPullConsumer c = new DefaultMQPullConsumer(group, settings.rpcHook());
        settings.configure(c, clientName);
        c.setMessageModel(MessageModel.CLUSTERING);
        c.setBrokerSuspendMaxTimeMillis(SUSPEND_MILLIS);
        c.setConsumerTimeoutMillisWhenSuspend(PULL_TIMEOUT_MILLIS);
        try {
            c.start();
        } catch (Exception e) {
            return CompletableFuture.failedFuture(new SwitchboardException("Could not start a RocketMQ pull consumer for "
                    + "control log '" + queue.getTopic() + "' (name server " + settings.nameServer() + "): " + e.getMessage(), e));
        }
        consumer = c;
        Thread t = DaemonThreads.newThread("switchboard-control-log-" + queue.getTopic(), () -> run(c, listener));
        thread = t;
        t.start();
        return caughtUp.copy();
    }

    /** The follower thread: takes the end to catch up to, then pulls from offset 0 until closed. */
    private void run(DefaultMQPullConsumer c, Listener listener) {
        long deadline = System.nanoTime() + settings.adminTimeout().toNanos();
        long target = -1;
        long next = 0;
        boolean outage = false;
        while (!closed.get()) {
            try {
                if (target < 0) {
                    target = c.maxOffset(queue);
                }
                PullResult result = c.pullBlockIfNotFound(queue, "*", next, BATCH);
                lastPull = System.nanoTime();
                pulled = true;
                if (outage) {
                    log.info("Following control log '{}' again from offset {}", queue.getTopic(), next);
                    outage = false;
                }
                if (result.getPullStatus() == PullStatus.FOUND) {
                    for (MessageExt record : result.getMsgFoundList()) {
                        if (closed.get()) {
                            return;
                        }
                        pass(listener, record);
                    }
                } else if (result.getPullStatus() == PullStatus.OFFSET_ILLEGAL) {
                    log.warn("Control log '{}': offset {} is no longer on the broker (retention); going on from {}",
                            queue.getTopic(), next, result.getNextBeginOffset());
                }
                next = result.getNextBeginOffset();
                if (next >= target) {
                    caughtUp.complete(null);
                }
            } catch (InterruptedException e) {
                if (closed.get()) {
                    return;
                }
            } catch (Exception e) {
                if (closed.get()) {
                    return;
                }
                pulled = false;
                if (!outage) {
                    outage = true;
                    log.warn("Control log '{}' cannot be read from name server {} ({}); retrying every second",
                            queue.getTopic(), settings.nameServer(), e.toString());
                }
                if (System.nanoTime() - deadline > 0 && !caughtUp.isDone()) {
                    caughtUp.completeExceptionally(new SwitchboardException("Control log '" + queue.getTopic()
                            + "' could not be read within " + settings.adminTimeout() + " (name server "
                            + settings.nameServer() + "): " + e.getMessage() + "; still trying in the background", e));
                }
                LockSupport.parkNanos(RETRY_NANOS);
            }
        }
    }

    private void pass(Listener listener, MessageExt record) {
        String key = record.getUserProperty(KEY);
        try {
            listener.onRecord(key != null ? key : record.getKeys(), record.getBody());
        } catch (RuntimeException e) {
            log.warn("The listener of control log '{}' failed on record {} (key '{}'); going on", queue.getTopic(),
                    record.getQueueOffset(), key, e);
        }
    }

    @Override
    public boolean connected() {
        return pulled && !closed.get() && System.nanoTime() - lastPull < CONNECTED_NANOS;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        onClose.accept(this);
        caughtUp.completeExceptionally(new IllegalStateException("Control log '" + queue.getTopic() + "' was closed"));
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
        DefaultMQPullConsumer c = consumer;
        if (c != null) {
            c.shutdown();
        }
    }

    @Override
    public String toString() {
        return "RocketMqControlLog[" + queue.getTopic() + "]";
    }
}
