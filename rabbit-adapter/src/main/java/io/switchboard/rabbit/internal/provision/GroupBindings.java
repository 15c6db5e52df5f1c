package io.switchboard.rabbit.internal.provision;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import io.switchboard.spi.TagFilter;
import java.io.IOException;
import java.util.List;

/**
 * Binds a consumer group's queues to its destination, with or without a tag filter.
 *
 * <p>A record's routing key is its partition, followed by its tag when it has one ({@code "0"},
 * {@code "3.paid"}; see {@link RabbitTopology#routingKey(int, String)}). Unfiltered, a group queue is bound
 * directly to the destination with {@code #} (one partition) or {@code <p>.#}, so it gets every record of its
 * partition, tagged or not. Filtered, the destination is bound to the group's filter exchange
 * {@code <destination>.<group>:filter} with {@code *.<tag>} per tag, and that exchange to the queues with
 * {@code #} or {@code <p>.#}: the broker routes nothing else to the queues.
 *
 * <p>AMQP cannot list bindings, so a group's filter lives in its filter exchange, whose deletion removes the
 * old filter's bindings whatever they were. Subscribing rebinds the group to the subscription's filter,
 * without a moment in which a record the new filter selects has no route: first the new filter's keys are
 * bound to the queues directly, then the unfiltered bindings are removed, the old filter exchange deleted, the
 * new one declared and bound, and the direct bindings removed again. While that runs the queues may still get
 * records of the old filter, which the consumer drops (and counts) in the client. The last subscription of a
 * group sets the group's filter: members of one group must subscribe with the same filter.
 */
final class GroupBindings {

    private GroupBindings() {}

    /** The filter exchange of a group (':' cannot occur in a destination name, so it never names a destination). */
    static String filterExchange(String destination, String group) {
        return destination + "." + group + ":filter";
    }

    /** With direct exchanges: binds each partition queue with its partition's key; filters apply in the client. */
    static void bindDirect(Channel channel, String destination, List<String> queues) throws IOException {
        for (int p = 0; p < queues.size(); p++) {
            channel.queueBind(queues.get(p), destination, RabbitTopology.routingKey(p));
        }
    }

    /** With direct exchanges: binds a broadcast subscriber's queue with every partition's key. */
    static void bindBroadcastDirect(Channel channel, String destination, String queue, int partitions) throws IOException {
        for (int p = 0; p < partitions; p++) {
            channel.queueBind(queue, destination, RabbitTopology.routingKey(p));
        }
    }

    /**
     * Binds the queues to the destination for {@code filter}; null keeps the group's current filter (a group
     * that has none, or is new, gets the unfiltered bindings).
     */
    static void bind(Channel channel, String destination, String group, List<String> queues, TagFilter filter,
            boolean hasFilterExchange) throws IOException {
        String filterExchange = filterExchange(destination, group);
        if (filter == null) {
            if (hasFilterExchange) {
                return; // filtered by an earlier subscription: left as it is
            }
            filter = TagFilter.parse(null);
        }
        int partitions = queues.size();
        if (filter.matchesAll()) {
            for (int p = 0; p < partitions; p++) {
                channel.queueBind(queues.get(p), destination, RabbitTopology.bindingKey(partitions, p));
                if (partitions > 1) {
                    channel.queueUnbind(queues.get(p), destination, RabbitTopology.routingKey(p)); // before tags: "<p>"
                }
            }
            channel.exchangeDelete(filterExchange);
            return;
        }
        for (int p = 0; p < partitions; p++) {
            for (String tag : filter.tags()) {
                channel.queueBind(queues.get(p), destination, RabbitTopology.routingKey(p, tag));
            }
        }
        for (int p = 0; p < partitions; p++) {
            channel.queueUnbind(queues.get(p), destination, RabbitTopology.bindingKey(partitions, p));
            if (partitions > 1) {
                channel.queueUnbind(queues.get(p), destination, RabbitTopology.routingKey(p));
            }
        }
        channel.exchangeDelete(filterExchange);
        channel.exchangeDeclare(filterExchange, BuiltinExchangeType.TOPIC, true);
        for (int p = 0; p < partitions; p++) {
            channel.queueBind(queues.get(p), filterExchange, RabbitTopology.bindingKey(partitions, p));
        }
        for (String tag : filter.tags()) {
            channel.exchangeBind(filterExchange, destination, anyPartition(tag));
        }
        for (int p = 0; p < partitions; p++) {
            for (String tag : filter.tags()) {
                channel.queueUnbind(queues.get(p), destination, RabbitTopology.routingKey(p, tag));
            }
        }
    }

    /** Binds a broadcast subscriber's own queue: every record, or those with the filter's tags. */
    static void bindBroadcast(Channel channel, String destination, String queue, TagFilter filter) throws IOException {
        if (filter.matchesAll()) {
            channel.queueBind(queue, destination, RabbitTopology.ALL);
            return;
        }
        for (String tag : filter.tags()) {
            channel.queueBind(queue, destination, anyPartition(tag));
        }
    }

    /** The binding key of the records with this tag in any partition. */
    private static String anyPartition(String tag) {
        return "*." + tag;
    }
}
