package io.switchboard.rabbit;

import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;

/**
 * The RabbitMQ adapter, id {@value #ID}, on amqp-client with automatic connection and topology
 * recovery.
 *
 * <p>Mapping: a destination is a durable topic exchange; a consumer group is a durable queue
 * {@code <destination>.<group>} bound with {@code #}, so that a plain AMQP publisher reaches it
 * with any routing key (partitions are off unless asked for); a destination with more than one
 * partition (asked for explicitly) has one queue per partition, {@code <destination>.<group>.<p>}
 * bound with {@code "<p>"}, records routed by key hash (a plain publisher then uses routing key
 * {@code "<p>"}); a broadcast subscriber has an exclusive auto-delete queue. Envelope attributes travel as CloudEvents AMQP
 * headers ({@code cloudEvents_*}). Exactly-once is emulated by core (at-least-once plus
 * deduplication on the message id); there is no delayed delivery (Debian's RabbitMQ has no
 * delayed-message plugin).
 *
 * <p>{@code control()} offers the fleet control plane a log on a stream queue and leadership through
 * an exclusive queue held by a connection of its own (see the module's README).
 *
 * <p>Properties (defaults in brackets):
 * <ul>
 *   <li>{@code rabbitmq.uri} [{@code amqp://guest:guest@127.0.0.1:5672/}]: an empty vhost means {@code /};
 *       the password is never logged</li>
 *   <li>{@code rabbitmq.addresses} [none]: the nodes of a cluster, {@code host1:port1,host2:port2,...}
 *       (port optional, the scheme's default). When set, every connection goes to one of these nodes,
 *       tried in an order amqp-client shuffles on each attempt, and a lost connection recovers on any
 *       node that answers; the URI then gives only user, password, vhost, scheme (TLS) and query
 *       parameters. Unset, the URI's host and port are the one address, as before. With more than one
 *       address and {@code rabbitmq.queue-type=classic} the adapter logs a warning when it starts:
 *       on a cluster use quorum queues (see the module's README, "Running on a cluster")</li>
 *   <li>{@code rabbitmq.connection-name} [{@code switchboard-<instance>}], {@code rabbitmq.recovery-interval} [1s]</li>
 *   <li>{@code rabbitmq.publisher-channels} [2] channels per publisher; a thread always uses the same one</li>
 *   <li>{@code rabbitmq.max-outstanding-confirms} [1000] unconfirmed records per publisher;
 *       {@code rabbitmq.publish-timeout} [30s] how long a send waits for room (unconfirmed records) or for a resource alarm to clear before failing</li>
 *   <li>{@code rabbitmq.connect-timeout} [10s] bound on the TCP connect and the AMQP handshake</li>
 *   <li>{@code rabbitmq.queue-type} [classic] or quorum; {@code rabbitmq.lazy} [false] (classic only);
 *       {@code rabbitmq.max-length} [0 = none] with {@code rabbitmq.overflow} [drop-head] or reject-publish
 *       or reject-publish-dlx; {@code rabbitmq.delivery-limit} (quorum only);
 *       {@code rabbitmq.single-active-consumer} [false]: strict per-key order across the members of a group</li>
 *   <li>{@code rabbitmq.required-groups} [none]: groups whose queues {@code ensureDestination} declares,
 *       so messages are kept before those groups subscribe</li>
 *   <li>{@code rabbitmq.max-message-size} [4194304] bytes</li>
 *   <li>core's {@code switchboard.partitions} [1 on RabbitMQ]: partitions of an auto-provisioned
 *       destination, and of one not provisioned by this Switchboard; set on a publisher or
 *       subscription, the partitions that one uses</li>
 * </ul>
 * Every process must agree on a destination's partition count (it is not stored in RabbitMQ):
 * a publisher routing to a partition no group queue is bound to gets an unroutable failure, never
 * a silent loss. Queue settings apply when a queue is created; an existing queue with other arguments is used as
 * its owner declared it (logged once at INFO), never refused.
 *
 * <p>Adopting the exchanges and queues other applications own (adopt, don't impose), per publisher
 * ({@code PublisherBuilder.property}) or subscription ({@code SubscriberBuilder.property}):
 * <ul>
 *   <li>{@code rabbitmq.declare} [create]: {@code create} declares what is missing and uses what exists as it is;
 *       {@code passive} declares nothing and checks with passive declares that the exchange a publisher publishes
 *       to, or the queue a subscription consumes, exists, else fails at start with a
 *       {@link io.switchboard.ConfigurationException} naming it and {@code rabbitmq.declare=create};
 *       {@code none} declares and checks nothing (also an instance property)</li>
 *   <li>{@code rabbitmq.exchange} [the destination]: the exchange a publisher publishes to and a subscription's
 *       queue is bound from; empty: the default exchange (routing key = queue name)</li>
 *   <li>{@code rabbitmq.adopted-exchange-type} [the instance's exchange type]: direct, topic, fanout or headers,
 *       for an exchange named by {@code rabbitmq.exchange} that Switchboard creates</li>
 *   <li>{@code rabbitmq.routing-key} (publisher) [the partition's]: one fixed routing key for every message</li>
 *   <li>{@code rabbitmq.queue} (subscription) [{@code <destination>.<group>}]: consume this named queue (one
 *       queue, no partitions)</li>
 *   <li>{@code rabbitmq.binding-keys} (subscription) [none]: comma-separated binding keys, wildcards allowed, its
 *       queue is bound with from {@code rabbitmq.exchange} ({@code declare=create} only)</li>
 *   <li>{@code rabbitmq.queue-arguments.<x-arg>} [none]: arguments of a queue Switchboard creates; the numeric
 *       ones ({@code x-message-ttl}, {@code x-max-length}, {@code x-expires}, {@code x-max-length-bytes},
 *       {@code x-delivery-limit}, {@code x-max-priority}) become numbers, {@code true}/{@code false} booleans</li>
 * </ul>
 * What an adopted layout gives up fails at start naming the setting that keeps it: partitions with a named queue
 * or a fixed routing key ({@link io.switchboard.ConfigurationException}), a broadcast subscription of a named
 * queue; a delayed message to an adopted exchange fails with {@link io.switchboard.UnsupportedCapabilityException}.
 * Tag filters on a named queue apply in the client. Core's dead-letter and retry destinations keep Switchboard's
 * own layout. Header values of other types than text (a Spring AMQP publisher's Integer, Boolean, byte[], tables)
 * reach the handler as text. Details: the module's README, "Adopting an existing layout".
 */
public final class RabbitAdapterFactory implements BrokerAdapterFactory {

    /** The adapter id. */
    public static final String ID = RabbitAdapter.ID;

    @Override
    public String id() {
        return ID;
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        return new RabbitAdapter(config);
    }
}
