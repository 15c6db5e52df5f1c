package io.switchboard.rocketmq.internal.client;

import java.lang.reflect.Field;
import java.util.concurrent.ExecutorService;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.impl.consumer.ConsumeMessageService;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.common.ServiceState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuts a rocketmq-client push consumer down completely, its consume services included.
 *
 * <p>rocketmq-client 5.5.0's {@code DefaultMQPushConsumerImpl.start()} makes two consume services:
 * the one that consumes ({@code ConsumeMessageOrderlyService} or
 * {@code ConsumeMessageConcurrentlyService}) and one for POP consumption
 * ({@code ConsumeMessagePopOrderlyService} or {@code ConsumeMessagePopConcurrentlyService}), made
 * and started even when the consumer never pops. Its {@code shutdown()} shuts down the first only:
 * the POP service's scheduler stays, and for an orderly consumer of a group it runs a periodic
 * task, so its non-daemon thread {@code ConsumeMessageScheduledThread_1} outlived every closed
 * consumer and kept the JVM from exiting (one such thread per closed subscription). The client
 * has no accessor for that service, so it is read from the consumer's field, and shut down here
 * after the consumer. A failed {@code start()} leaves the consumer in a state whose
 * {@code shutdown()} does nothing; then the consuming service is shut down here too.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
public final class PushConsumerShutdown {

    private static final Logger log = LoggerFactory.getLogger(PushConsumerShutdown.class);
    private static final Field POP_SERVICE = popServiceField();

    private PushConsumerShutdown() {
    }

    /**
     * Shuts {@code consumer} down (while waking its client instance's event thread, see
     * {@link ClientShutdown}), then the consume services its own shutdown leaves running.
     *
     * @param consumer the consumer, started or not, or whose start failed
     */
    public static void run(DefaultMQPushConsumer consumer) {
        DefaultMQPushConsumerImpl impl = consumer.getDefaultMQPushConsumerImpl();
        ClientShutdown.run(impl.getmQClientFactory(), consumer::shutdown);
        long await = consumer.getAwaitTerminationMillisWhenShutdown();
        if (impl.getServiceState() != ServiceState.SHUTDOWN_ALREADY && impl.getConsumeMessageService() != null) {
            impl.getConsumeMessageService().shutdown(await);
        }
        ConsumeMessageService pop = popService(impl);
        if (pop != null) {
            pop.shutdown(await);
        }
    }

    /**
     * Ends the thread of the started consumer's POP service, which this adapter never uses: its
     * consumers rebalance on the client (orderly ones always; concurrent ones by rocketmq-client's
     * default, which the adapter keeps), so they pull and nothing is ever handed to the POP service.
     * Its only periodic task, for an orderly consumer of a group, is {@code RebalanceImpl.lockAll()}
     * every 20 s, which the consuming orderly service runs on the same schedule already. Only the
     * scheduler is shut down: the service's own {@code shutdown()} would also unlock every queue the
     * consumer holds. Saves one thread per subscription; without access to the field it does nothing.
     *
     * @param consumer a started consumer
     */
    public static void endIdlePopThread(DefaultMQPushConsumer consumer) {
        ConsumeMessageService pop = popService(consumer.getDefaultMQPushConsumerImpl());
        if (pop == null) {
            return;
        }
        try {
            Field scheduler = pop.getClass().getDeclaredField("scheduledExecutorService");
            scheduler.setAccessible(true);
            ((ExecutorService) scheduler.get(pop)).shutdownNow();
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.debug("Cannot end the idle POP scheduler of a RocketMQ push consumer; it keeps its thread: {}", e.toString());
        }
    }

    private static ConsumeMessageService popService(DefaultMQPushConsumerImpl impl) {
        if (POP_SERVICE == null) {
            return null;
        }
        try {
            return (ConsumeMessageService) POP_SERVICE.get(impl);
        } catch (IllegalAccessException | RuntimeException e) {
            log.warn("Cannot read the POP consume service of a RocketMQ push consumer to shut it down; its thread "
                    + "ConsumeMessageScheduledThread_* may stay alive: {}", e.toString());
            return null;
        }
    }

    private static Field popServiceField() {
        try {
            Field field = DefaultMQPushConsumerImpl.class.getDeclaredField("consumeMessagePopService");
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException | RuntimeException e) {
            log.debug("This rocketmq-client has no POP consume service field to shut down: {}", e.toString());
            return null;
        }
    }
}
