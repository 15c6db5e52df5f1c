package io.switchboard.rocketmq.internal.consume;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's orderly listener (queues locked on the broker, one consume thread per queue at a
 * time), handing each queue's messages to core in offset order through {@link Handoff}. A batch
 * to deliver again is suspended for a moment and delivered again from the same position, so
 * order holds.
 */
final class OrderlyListener implements MessageListenerOrderly {

    private final Handoff handoff;
    private final boolean atMostOnce;

    OrderlyListener(Handoff handoff, boolean atMostOnce) {
        this.handoff = handoff;
        this.atMostOnce = atMostOnce;
    }

    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> messages, ConsumeOrderlyContext context) {
        handoff.enter();
        try {
            if (handoff.stopped()) {
                return suspend(context);
            }
            boolean done = atMostOnce
                    ? handoff.deliverAtMostOnce(messages, context.getMessageQueue())
                    : handoff.deliver(messages, context.getMessageQueue());
            return done ? ConsumeOrderlyStatus.SUCCESS : suspend(context);
        } finally {
            handoff.leave();
        }
    }

    private ConsumeOrderlyStatus suspend(ConsumeOrderlyContext context) {
        context.setSuspendCurrentQueueTimeMillis(handoff.closing() ? 1000 : 200);
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    }
}
