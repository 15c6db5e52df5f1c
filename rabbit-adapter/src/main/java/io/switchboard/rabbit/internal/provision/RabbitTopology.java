package io.switchboard.rabbit.internal.provision;

/**
 * How Switchboard's model maps onto RabbitMQ names.
 *
 * <ul>
 *   <li>A destination is a durable topic exchange of the same name.</li>
 *   <li>A destination has N partitions: 1 (not partitioned) unless {@code switchboard.partitions}
 *       or a {@code DestinationSpec} asks for more. A publisher routes a record with routing key
 *       {@code "<p>"}, p = hash(key) mod N (round robin without a key; always {@code "0"} when
 *       N = 1), followed by {@code ".<tag>"} when the record has a tag ({@code "0.paid"}).</li>
 *   <li>A consumer group is one durable queue {@code <destination>.<group>} bound with {@code #}
 *       when N = 1, so that a plain AMQP publisher reaches it with any routing key; else N queues
 *       {@code <destination>.<group>.<p>} bound with {@code "<p>.#"}, which a plain publisher reaches
 *       only with a routing key that starts with {@code "<p>"}. A group with a tag filter is bound
 *       through its filter exchange instead (see {@link GroupBindings}).</li>
 *   <li>A broadcast subscriber has one exclusive, auto-delete queue
 *       {@code <destination>.<group>} (core makes the group name unique) bound with {@code #}, or
 *       with {@code *.<tag>} per tag of its filter.</li>
 *   <li>Delayed records wait in the delay levels {@code switchboard.delay.<n>} first (see
 *       {@link DelayChain}) and reach the destination with the routing key above.</li>
 * </ul>
 *
 * <p>With {@code rabbitmq.exchange-type=direct} a destination is a durable direct exchange instead: a record's
 * routing key is its partition alone ({@code "<p>"}, the tag travels only in its header), a group's partition
 * queue is bound with {@code "<p>"}, a broadcast subscriber's queue with every partition's key, and a tag filter
 * applies in the client (as on Kafka: the group's queues get every record, the consumer acknowledges and counts
 * what the filter does not select). A plain AMQP publisher then reaches a group only with routing key
 * {@code "<p>"} ({@code "0"} when unpartitioned). Why: RabbitMQ's topic exchange routes each message through its
 * binding trie, which cost this machine's 3.10 server about a quarter of its rate against a direct exchange in
 * seed 001's shape (bench/README.md).
 */
public final class RabbitTopology {

    /** The binding key that matches every routing key. */
    public static final String ALL = "#";
    private static final String[] ROUTING_KEYS = new String[64];

    static {
        for (int i = 0; i < ROUTING_KEYS.length; i++) {
            ROUTING_KEYS[i] = Integer.toString(i);
        }
    }

    private RabbitTopology() {}

    /** The routing key of partition {@code p}. */
    public static String routingKey(int partition) {
        return partition < ROUTING_KEYS.length ? ROUTING_KEYS[partition] : Integer.toString(partition);
    }

    /** The routing key of a record of partition {@code p} with this tag, or of the partition when the tag is null. */
    public static String routingKey(int partition, String tag) {
        return tag == null ? routingKey(partition) : routingKey(partition) + "." + tag;
    }

    /** The partition a record with this key goes to. */
    public static int partitionOf(String key, int partitions) {
        return (key.hashCode() & 0x7fffffff) % partitions;
    }

    /** The queue of a consumer group's partition {@code p}. */
    static String groupQueue(String destination, String group, int partitions, int partition) {
        String base = destination + "." + group;
        return partitions == 1 ? base : base + "." + partition;
    }

    /** The binding key of every record of a consumer group's partition queue, tagged or not. */
    static String bindingKey(int partitions, int partition) {
        return partitions == 1 ? ALL : routingKey(partition) + ".#";
    }
}
