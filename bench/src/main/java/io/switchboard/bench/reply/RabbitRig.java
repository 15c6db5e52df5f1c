package io.switchboard.bench.reply;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RabbitMQ's own request/reply: direct reply-to ({@code amq.rabbitmq.reply-to}, no reply queue), as amqp-client's
 * {@code RpcClient} and Spring AMQP's {@code convertSendAndReceive} use it, with the request's
 * {@code correlation_id}; each pending request has a time-out, as those clients give it. Responders: each a
 * connection of its own, manual acknowledgement, prefetch 256, replying to {@code reply_to} through the default
 * exchange before acknowledging the request. Requests are published without confirms (as RPC clients do).
 */
final class RabbitRig implements Rig {

    private static final String DIRECT_REPLY_TO = "amq.rabbitmq.reply-to";

    private final String queue;
    private final Duration timeout;
    private final List<Connection> connections = new ArrayList<>();
    private final Channel requests;
    private final ConcurrentHashMap<String, Waiting> pending = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final AtomicLong next = new AtomicLong();

    private record Waiting(Outcome outcome, ScheduledFuture<?> timeout) {}

    RabbitRig(String uri, String queue, int responders, int dropPercent, Duration timeout) throws Exception {
        this.queue = queue;
        this.timeout = timeout;
        timer.setRemoveOnCancelPolicy(true);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        if (factory.getVirtualHost().isEmpty()) { // amqp://host:5672/ names the empty vhost; the SDK reads it as "/"
            factory.setVirtualHost("/");
        }
        AtomicLong seen = new AtomicLong();
        for (int i = 0; i < responders; i++) {
            Connection c = factory.newConnection("bench-rpc-responder-" + i);
            connections.add(c);
            Channel ch = c.createChannel();
            ch.queueDeclare(queue, true, false, false, null);
            ch.basicQos(256);
            ch.basicConsume(queue, false, (tag, delivery) -> {
                AMQP.BasicProperties props = delivery.getProperties();
                if (!RequestReplyBench.drops(seen.incrementAndGet(), dropPercent) && props.getReplyTo() != null) {
                    ch.basicPublish("", props.getReplyTo(), new AMQP.BasicProperties.Builder()
                            .correlationId(props.getCorrelationId()).build(), delivery.getBody());
                }
                ch.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
            }, tag -> { });
        }
        Connection c = factory.newConnection("bench-rpc-requester");
        connections.add(c);
        requests = c.createChannel();
        requests.basicConsume(DIRECT_REPLY_TO, true, (tag, delivery) -> {
            Waiting w = pending.remove(delivery.getProperties().getCorrelationId());
            if (w != null) {
                w.timeout().cancel(false);
                w.outcome().replied();
            }
        }, tag -> { });
    }

    @Override
    public String name() {
        return "rabbitmq native (direct reply-to)";
    }

    @Override
    public void request(byte[] payload, Outcome outcome) {
        String id = Long.toString(next.incrementAndGet(), 36);
        ScheduledFuture<?> t = timer.schedule(() -> {
            Waiting w = pending.remove(id);
            if (w != null) {
                w.outcome().failed(new TimeoutException("no reply to " + id + " within " + timeout));
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        pending.put(id, new Waiting(outcome, t));
        try {
            synchronized (requests) { // one publishing thread in the bench; a channel is not for concurrent publishes
                requests.basicPublish("", queue, new AMQP.BasicProperties.Builder().replyTo(DIRECT_REPLY_TO)
                        .correlationId(id).build(), payload);
            }
        } catch (IOException e) {
            Waiting w = pending.remove(id);
            if (w != null) {
                t.cancel(false);
                outcome.failed(e);
            }
        }
    }

    @Override
    public int pending() {
        return pending.size();
    }

    @Override
    public void close() throws Exception {
        timer.shutdownNow();
        try (Channel ch = connections.get(0).createChannel()) {
            ch.queueDelete(queue);
        }
        for (Connection c : connections) {
            c.close(10_000);
        }
    }
}
