package io.switchboard.bench.reply;

import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's own request/reply: {@link DefaultMQProducer#request(Message, RequestCallback, long)} (the broker pushes
 * the reply to the requesting client), and responders that are push consumers in one group, each with a producer
 * that sends {@link MessageUtil#createReplyMessage} replies. The topic (4 queues) is made by the SDK's provisioning.
 */
final class RocketMqRig implements Rig {

    private final String topic;
    private final long timeoutMillis;
    private final DefaultMQProducer requester;
    private final List<DefaultMQPushConsumer> consumers = new ArrayList<>();
    private final List<DefaultMQProducer> replyProducers = new ArrayList<>();
    /** Requests the responders consumed (redeliveries included). */
    private final AtomicLong seen = new AtomicLong();

    RocketMqRig(String nameServer, String topic, int responders, int dropPercent, java.time.Duration timeout) throws Exception {
        this.topic = topic;
        this.timeoutMillis = timeout.toMillis();
        try (Switchboard admin = Switchboard.builder().broker("rocketmq").property("rocketmq.namesrv-addr", nameServer).build()) {
            admin.provisioning().ensureDestination(DestinationSpec.of(topic, 4));
        }
        AtomicLong seen = this.seen;
        for (int i = 0; i < responders; i++) {
            DefaultMQProducer replies = new DefaultMQProducer("bench-rpc-replies-" + i);
            replies.setNamesrvAddr(nameServer);
            replies.setInstanceName("bench-rpc-replies-" + i);
            replies.start();
            replyProducers.add(replies);
            DefaultMQPushConsumer c = new DefaultMQPushConsumer("bench-rpc-responders");
            c.setNamesrvAddr(nameServer);
            c.setInstanceName("bench-rpc-responder-" + i);
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
                for (MessageExt m : messages) {
                    if (RequestReplyBench.drops(seen.incrementAndGet(), dropPercent)) {
                        continue;
                    }
                    try {
                        replies.send(MessageUtil.createReplyMessage(m, m.getBody()));
                    } catch (Exception e) {
                        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                    }
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            c.start();
            consumers.add(c);
        }
        requester = new DefaultMQProducer("bench-rpc-requester");
        requester.setNamesrvAddr(nameServer);
        requester.setInstanceName("bench-rpc-requester");
        requester.start();
    }

    @Override
    public String name() {
        return "rocketmq native (DefaultMQProducer.request)";
    }

    @Override
    public void request(byte[] payload, Outcome outcome) {
        try {
            requester.request(new Message(topic, payload), new RequestCallback() {
                @Override
                public void onSuccess(Message reply) {
                    outcome.replied();
                }

                @Override
                public void onException(Throwable e) {
                    outcome.failed(e);
                }
            }, timeoutMillis);
        } catch (Exception e) {
            outcome.failed(e);
        }
    }

    @Override
    public int pending() {
        return -1; // the client's RequestFutureHolder is not public
    }

    @Override
    public void close() {
        System.out.println("  " + name() + ": the responders consumed " + seen.get() + " requests");
        consumers.forEach(DefaultMQPushConsumer::shutdown);
        replyProducers.forEach(DefaultMQProducer::shutdown);
        requester.shutdown();
    }
}
