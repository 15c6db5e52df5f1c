package io.switchboard.rocketmq.internal.consume;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's concurrent listener ({@code rocketmq.consume-mode=concurrently}): batches of one
 * queue go to several consume threads at once, so records reach core out of queue order and per-key
 * order is given up for throughput. Used for group subscriptions at least once or exactly once
 * only. A batch to deliver again is given back with {@code RECONSUME_LATER}: RocketMQ sends it to
 * the group's retry topic, which delivers it again with the delivery count raised (after 16
 * returns, to {@code %DLQ%<group>}).
 */
final class ConcurrentListener implements MessageListenerConcurrently {

    private final Handoff handoff;

    ConcurrentListener(Handoff handoff) {
        this.handoff = handoff;
    }

    @Override
    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> messages, ConsumeConcurrentlyContext context) {
        handoff.enter();
        try {
            if (!handoff.stopped() && handoff.deliver(messages, context.getMessageQueue())) {
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }
            context.setDelayLevelWhenNextConsume(Handoff.RETURN_DELAY_LEVEL);
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        } finally {
            handoff.leave();
        }
    }
}
