package io.switchboard.bench.driver;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Keyed sends through plain rocketmq-client that keep a key's order as the SDK does, for mode
 * {@link BenchDriver#NATIVE_BATCH}: one lane per queue (the key's hash picks the queue, as the
 * native driver's selector does), one batch in flight per lane, and what waited in the lane
 * meanwhile goes as the next batch ({@code send(Collection, MessageQueue, SendCallback)}), up to
 * 256 messages or 1 MiB. The next batch is sent from the client's callback thread, as the SDK's
 * publisher does. Keyless messages are not batched: they go one by one, asynchronously.
 */
final class RocketMqBatchingSender {

    private static final int MAX_BATCH = 256;
    private static final int MAX_BATCH_BYTES = 1024 * 1024;

    private final DefaultMQProducer producer;
    private final List<MessageQueue> queues;
    private final Lane[] lanes;

    RocketMqBatchingSender(DefaultMQProducer producer, String topic) throws Exception {
        this.producer = producer;
        this.queues = List.copyOf(producer.fetchPublishMessageQueues(topic));
        this.lanes = new Lane[queues.size()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane(queues.get(i));
        }
    }

    /** Sends a keyed message in its queue's lane; the callback hears of it once the broker stored its batch. */
    void send(String key, Message message, BenchProducer.SendCallback callback) {
        Lane lane = lanes[(key.hashCode() & 0x7fffffff) % lanes.length];
        List<Waiting> batch;
        synchronized (lane) {
            lane.waiting.addLast(new Waiting(message, callback));
            if (lane.inFlight) {
                return;
            }
            lane.inFlight = true;
            batch = lane.next();
        }
        lane.send(batch);
    }

    private record Waiting(Message message, BenchProducer.SendCallback callback) {}

    private final class Lane {
        final MessageQueue queue;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        boolean inFlight;

        Lane(MessageQueue queue) {
            this.queue = queue;
        }

        /** Under the lane's lock: the next batch, taken from the waiting messages. */
        List<Waiting> next() {
            List<Waiting> batch = new ArrayList<>(Math.min(MAX_BATCH, waiting.size()));
            int bytes = 0;
            while (!waiting.isEmpty() && batch.size() < MAX_BATCH
                    && (batch.isEmpty() || bytes + waiting.peekFirst().message().getBody().length <= MAX_BATCH_BYTES)) {
                Waiting w = waiting.pollFirst();
                bytes += w.message().getBody().length;
                batch.add(w);
            }
            return batch;
        }

        void send(List<Waiting> batch) {
            List<Message> messages = new ArrayList<>(batch.size());
            batch.forEach(w -> messages.add(w.message()));
            try {
                producer.send(messages, queue, new SendCallback() {
                    @Override
                    public void onSuccess(SendResult result) {
                        done(batch, null);
                    }

                    @Override
                    public void onException(Throwable e) {
                        done(batch, e);
                    }
                });
            } catch (Exception e) {
                done(batch, e);
            }
        }

        private void done(List<Waiting> batch, Throwable error) {
            batch.forEach(w -> w.callback().done(error));
            List<Waiting> more;
            synchronized (this) {
                if (waiting.isEmpty()) {
                    inFlight = false;
                    return;
                }
                more = next();
            }
            send(more);
        }
    }
}
