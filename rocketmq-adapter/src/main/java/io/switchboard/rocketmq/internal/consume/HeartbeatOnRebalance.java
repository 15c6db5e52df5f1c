package io.switchboard.rocketmq.internal.consume;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.consumer.MessageQueueListener;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the broker learns a consumer's new subscription version after a rebalance.
 *
 * <p>When its queues change, rocketmq-client 5.5 raises the subscription's version and sends a
 * heartbeat, but only if no other heartbeat holds the client's lock at that moment; otherwise it
 * skips it, and the broker refuses every pull ("the subscription is not latest") until the next
 * periodic heartbeat, 30 seconds later. Nothing is lost, but nothing is delivered either. This
 * listener, called right after, retries the heartbeat until one gets through.
 */
final class HeartbeatOnRebalance implements MessageQueueListener {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatOnRebalance.class);
    private static final int MAX_TRIES = 100;
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final DefaultMQPushConsumerImpl consumer;

    HeartbeatOnRebalance(DefaultMQPushConsumerImpl consumer) {
        this.consumer = consumer;
    }

    @Override
    public void messageQueueChanged(String topic, Set<MessageQueue> all, Set<MessageQueue> mine) {
        for (int attempt = 1; attempt <= MAX_TRIES; attempt++) {
            if (consumer.getmQClientFactory().sendHeartbeatToAllBrokerWithLockV2(true)) {
                return;
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        log.warn("Could not tell the broker about the new queues of '{}' after {} heartbeats; pulls may wait for the "
                + "next periodic heartbeat", topic, MAX_TRIES);
    }
}
