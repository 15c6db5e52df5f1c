package io.switchboard.rocketmq.internal.client;

import io.switchboard.spi.DaemonThreads;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService;
import org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService;
import org.apache.rocketmq.client.impl.consumer.ConsumeMessageService;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads an adapter's push consumers share instead of each starting its own
 * ({@code rocketmq.share-consume-threads}, on by default).
 *
 * <p>rocketmq-client 5.5.0 gives every push consumer, in {@code DefaultMQPushConsumerImpl.start()},
 * a consume service with a pool of {@code consumeThreadMax} threads that never retire
 * ({@code ConsumeMessageThread_<group>_N}) and a scheduler thread of its own
 * ({@code ConsumeMessageScheduledThread_<group>_1}: an orderly group consumer's periodic queue
 * locking every 20 s and delayed resubmits; a concurrent one's also
 * {@code CleanExpireMsgScheduledThread_<group>_1}). A RocketMQ group needs one consumer, and a
 * Switchboard subscription has its own group, so 200 subscriptions held 400 threads even idle.
 *
 * <p>{@link #share} moves a started consumer's consume service onto this adapter's elastic pool
 * ({@code switchboard-rocketmq-consume-N}, threads retire after {@value #KEEP_ALIVE_SECONDS} s idle)
 * and single timer thread ({@code switchboard-rocketmq-timer}, which only times tasks and hands them
 * to the pool). Each consumer keeps its own limit: at most {@code consumeThreadMax} of its consume
 * requests run at once, in submission order, as on its own pool ({@link LimitedExecutor}); its
 * orderly queue locks and per-queue serial consumption are rocketmq-client's, unchanged. The pool
 * is unbounded because the handler runs on it and a batch waits for its settlement: its size is at
 * most the sum of the running consumers' limits, as before, but only while they consume.
 *
 * <p>The consume service's fields are final and have no setters, so they are replaced
 * reflectively (rocketmq-client 5.5.0, checked by {@code SharedConsumeThreadsTest}); when that is
 * not possible the consumer keeps its own threads. The consumer's own scheduler is shut down
 * (its periodic task is cancelled, a delayed resubmit already queued still runs, then its thread
 * ends), and its own consume pool lets its threads retire, so a request handed to it just before
 * the switch still runs.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
public final class SharedConsumeThreads implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SharedConsumeThreads.class);
    static final int KEEP_ALIVE_SECONDS = 10;
    /** rocketmq-client's schedule of {@code cleanExpireMsg} is every {@code consumeTimeout} minutes. */
    private static final long CLEAN_EXPIRED_UNIT_MILLIS = 60_000;

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS,
            TimeUnit.SECONDS, new SynchronousQueue<>(), DaemonThreads.numbered("switchboard-rocketmq-consume"));
    private final ScheduledThreadPoolExecutor timer =
            new ScheduledThreadPoolExecutor(1, DaemonThreads.named("switchboard-rocketmq-timer"));
    /** Subscriptions of this adapter still looking up their retry topic's route ({@code RocketMqConsumer} paces by it). */
    private final AtomicInteger routeWaits = new AtomicInteger();

    public SharedConsumeThreads() {
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        // With nothing scheduled (no consumer left) the timer thread ends too.
        timer.setKeepAliveTime(1, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
    }

    /**
     * Moves the started {@code consumer}'s consume service onto the shared threads; does nothing
     * (the consumer keeps its own) when this rocketmq-client's service cannot be changed.
     *
     * @return true when the consumer now runs on the shared threads
     */
    public boolean share(DefaultMQPushConsumer consumer) {
        ConsumeMessageService service = consumer.getDefaultMQPushConsumerImpl().getConsumeMessageService();
        try {
            Class<?> type = service.getClass();
            boolean orderly = type == ConsumeMessageOrderlyService.class;
            if (!orderly && type != ConsumeMessageConcurrentlyService.class) {
                log.debug("Unknown RocketMQ consume service {}; the consumer keeps its own threads", type.getName());
                return false;
            }
            Field executorField = field(type, "consumeExecutor");
            Field schedulerField = field(type, "scheduledExecutorService");
            Field cleanerField = orderly ? null : field(type, "cleanExpireMsgExecutors");
            Method cleanExpired = orderly ? null : type.getDeclaredMethod("cleanExpireMsg");
            if (cleanExpired != null) {
                cleanExpired.setAccessible(true);
            }
            ThreadPoolExecutor own = (ThreadPoolExecutor) executorField.get(service);
            ExecutorService ownScheduler = (ExecutorService) schedulerField.get(service);
            ExecutorService ownCleaner = cleanerField == null ? null : (ExecutorService) cleanerField.get(service);

            ScheduledView scheduler = new ScheduledView(timer, pool);
            executorField.set(service, new LimitedExecutor(pool, Math.max(1, consumer.getConsumeThreadMax())));
            schedulerField.set(service, scheduler);
            if (orderly && consumer.getMessageModel() == MessageModel.CLUSTERING) {
                ConsumeMessageOrderlyService orderlyService = (ConsumeMessageOrderlyService) service;
                scheduler.scheduleAtFixedRate(orderlyService::lockMQPeriodically, 1000, ProcessQueue.REBALANCE_LOCK_INTERVAL,
                        TimeUnit.MILLISECONDS);
            }
            if (cleanerField != null) {
                cleanerField.set(service, scheduler);
                long every = Math.max(1, consumer.getConsumeTimeout()) * CLEAN_EXPIRED_UNIT_MILLIS;
                scheduler.scheduleAtFixedRate(() -> invoke(cleanExpired, service), every, every, TimeUnit.MILLISECONDS);
                ownCleaner.shutdown();
            }
            // Cancels the periodic task start() scheduled; a delayed resubmit already queued still runs.
            ownScheduler.shutdown();
            // Not shut down: a request submitted to it before the switch still runs, then its threads retire.
            own.setKeepAliveTime(1, TimeUnit.SECONDS);
            own.allowCoreThreadTimeOut(true);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.debug("Cannot move a RocketMQ consumer onto the shared consume threads; it keeps its own: {}",
                    e.toString());
            return false;
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    private static void invoke(Method method, Object target) {
        try {
            method.invoke(target);
        } catch (ReflectiveOperationException e) {
            log.warn("RocketMQ consumer's periodic {} failed", method.getName(), e);
        }
    }

    /** How many of this adapter's subscriptions are looking up their retry topic's route: count one in, and out when done. */
    public AtomicInteger routeWaits() {
        return routeWaits;
    }

    /**
     * Runs {@code task} on the pool after {@code delayMillis} (the timer only times it); when this adapter has closed,
     * on the timer's thread or the caller's at once, so that a task that completes a stage always runs.
     */
    public void later(Runnable task, long delayMillis) {
        try {
            timer.schedule(() -> {
                try {
                    pool.execute(task);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    task.run();
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            task.run();
        }
    }

    /** Stops both thread pools; call once every consumer of the adapter is shut down. */
    @Override
    public void close() {
        timer.shutdownNow();
        pool.shutdown();
        try {
            if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
        }
    }
}
