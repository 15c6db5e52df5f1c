package io.switchboard.rocketmq.internal.consume;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.consumer.MessageQueueListener;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the broker learns a consumer's new subscription version after a rebalance, and reports the queue
 * reallocation as client events.
 *
 * <p>When its queues change, rocketmq-client 5.5 raises the subscription's version and sends a
 * heartbeat, but only if no other heartbeat holds the client's lock at that moment; otherwise it
 * skips it, and the broker refuses every pull ("the subscription is not latest") until the next
 * periodic heartbeat, 30 seconds later. Nothing is lost, but nothing is delivered either. This
 * listener, called right after, retries the heartbeat until one gets through.
 *
 * <p>Events (on the client's rebalance thread, once per change of the consumer's queues of a topic): an
 * {@link EventKinds#ASSIGNMENT} instant with the queues added and removed, and, when the consumer held queues of the
 * topic before (a reallocation among members, not its first assignment), a {@link EventKinds#REBALANCE} span that
 * ends once the broker has the new subscription (the heartbeat went through), so pulls of the new queues can start.
 * The group's retry topic is not reported.
 */
final class HeartbeatOnRebalance implements MessageQueueListener {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatOnRebalance.class);
    private static final int MAX_TRIES = 100;
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How many queues a detail names before it only counts the rest. */
    private static final int NAMED = 24;

    private final DefaultMQPushConsumerImpl consumer;
    private final ClientEvents events;
    private final String group;
    /** The queues of each topic this consumer held after the last change. */
    private final Map<String, Set<MessageQueue>> held = new ConcurrentHashMap<>();

    HeartbeatOnRebalance(DefaultMQPushConsumerImpl consumer, ClientEvents events, String group) {
        this.consumer = consumer;
        this.events = events;
        this.group = group;
    }

    @Override
    public void messageQueueChanged(String topic, Set<MessageQueue> all, Set<MessageQueue> mine) {
        ClientEvents.Span rebalance = report(topic, all, mine);
        try {
            for (int attempt = 1; attempt <= MAX_TRIES; attempt++) {
                if (consumer.getmQClientFactory().sendHeartbeatToAllBrokerWithLockV2(true)) {
                    return;
                }
                LockSupport.parkNanos(PAUSE_NANOS);
            }
            log.warn("Could not tell the broker about the new queues of '{}' after {} heartbeats; pulls may wait for the "
                    + "next periodic heartbeat", topic, MAX_TRIES);
        } finally {
            rebalance.end();
        }
    }

    /** Reports the change; {@return the open rebalance span, or one that records nothing} */
    private ClientEvents.Span report(String topic, Set<MessageQueue> all, Set<MessageQueue> mine) {
        if (events == ClientEvents.NONE || topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
            return ClientEvents.Span.NONE;
        }
        try {
            Set<MessageQueue> now = Set.copyOf(mine);
            Set<MessageQueue> before = held.getOrDefault(topic, Set.of());
            held.put(topic, now);
            Set<MessageQueue> added = new HashSet<>(now);
            added.removeAll(before);
            Set<MessageQueue> removed = new HashSet<>(before);
            removed.removeAll(now);
            if (added.isEmpty() && removed.isEmpty()) {
                return ClientEvents.Span.NONE;
            }
            ClientEvents.Span span = before.isEmpty() ? ClientEvents.Span.NONE
                    : events.begin(EventKinds.REBALANCE, group, "queues of '" + topic + "' reallocated: " + now.size() + " of "
                            + all.size() + " are this member's");
            events.instant(EventKinds.ASSIGNMENT, group, "added " + describe(added) + ", removed " + describe(removed)
                    + ", holds " + now.size());
            return span;
        } catch (RuntimeException e) {
            log.debug("Reporting a queue reallocation of group '{}' failed", group, e);
            return ClientEvents.Span.NONE;
        }
    }

    /** {@return the queues as {@code topic@broker[0,1]}, at most {@value #NAMED} named} */
    static String describe(Collection<MessageQueue> queues) {
        if (queues.isEmpty()) {
            return "[]";
        }
        Map<String, Set<Integer>> byTopicAndBroker = new java.util.TreeMap<>();
        for (MessageQueue queue : queues) {
            byTopicAndBroker.computeIfAbsent(queue.getTopic() + "@" + queue.getBrokerName(), k -> new TreeSet<>())
                    .add(queue.getQueueId());
        }
        StringBuilder text = new StringBuilder();
        int named = 0;
        for (Map.Entry<String, Set<Integer>> entry : byTopicAndBroker.entrySet()) {
            if (named >= NAMED) {
                break;
            }
            text.append(text.isEmpty() ? "" : " ").append(entry.getKey()).append('[');
            int inEntry = 0;
            for (int id : entry.getValue()) {
                if (named >= NAMED) {
                    break;
                }
                text.append(inEntry++ > 0 ? "," : "").append(id);
                named++;
            }
            text.append(']');
        }
        if (named < queues.size()) {
            text.append(" and ").append(queues.size() - named).append(" more");
        }
        return text.toString();
    }
}
