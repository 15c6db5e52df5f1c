package io.switchboard.rabbit.internal.provision;

import com.rabbitmq.client.Channel;
import io.switchboard.ConfigurationException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.rabbit.internal.RabbitSettings.Declare;
import io.switchboard.spi.ConsumerSpec;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adopt, don't impose: how a publisher or subscription uses exchanges and queues that other applications own
 * ({@code rabbitmq.declare}, {@code rabbitmq.exchange}, {@code rabbitmq.routing-key}, {@code rabbitmq.queue},
 * {@code rabbitmq.binding-keys}, {@code rabbitmq.queue-arguments.*}; see {@code RabbitAdapterFactory}).
 *
 * <p>Existence is checked with passive declares on short-lived channels of their own (a failed declare closes its
 * channel). Passive declares are not recorded by amqp-client's topology recovery, so a queue Switchboard found
 * rather than created is never declared again, with Switchboard's arguments, after a connection loss; a queue it
 * created is declared on the consumer's channel and recovered with the arguments it was created with.
 */
public final class Adoption {

    private static final Logger log = LoggerFactory.getLogger(Adoption.class);
    /** Queues whose owner's arguments were kept, logged once each. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private Adoption() {}

    /** Whether the exchange exists (a passive declare on a channel of its own). */
    public static boolean exchangeExists(RabbitAdapter adapter, String exchange) {
        return exists(adapter, "exchange", exchange);
    }

    /** Whether the queue exists (a passive declare on a channel of its own). */
    public static boolean queueExists(RabbitAdapter adapter, String queue) {
        return exists(adapter, "queue", queue);
    }

    private static boolean exists(RabbitAdapter adapter, String kind, String name) {
        return adapter.withChannel("look for " + kind + " '" + name + "'", ch -> {
            try {
                if (kind.equals("queue")) {
                    ch.queueDeclarePassive(name);
                } else {
                    ch.exchangeDeclarePassive(name);
                }
                return true;
            } catch (IOException e) {
                if (AmqpErrors.replyCode(e) == AmqpErrors.NOT_FOUND) {
                    return false;
                }
                throw e;
            }
        });
    }

    /**
     * Fails with a {@link ConfigurationException} naming the exchange and the setting that would create it, unless
     * it exists. The default exchange ({@code ""}) always exists.
     *
     * @param user who needs it, for the message ("publisher of 'orders'")
     */
    public static void requireExchange(RabbitAdapter adapter, String exchange, String user) {
        if (!exchange.isEmpty() && !exchangeExists(adapter, exchange)) {
            throw missing(adapter, "exchange", exchange, user);
        }
    }

    /** As {@link #requireExchange} for a queue. */
    public static void requireQueue(RabbitAdapter adapter, String queue, String user) {
        if (!queueExists(adapter, queue)) {
            throw missing(adapter, "queue", queue, user);
        }
    }

    private static ConfigurationException missing(RabbitAdapter adapter, String kind, String name, String user) {
        return new ConfigurationException("The " + kind + " '" + name + "' that the " + user + " uses does not exist on "
                + "RabbitMQ at " + adapter.printableUri() + ", and " + RabbitSettings.DECLARE + "=passive declares nothing. "
                + "Create it with the application that owns it, or set " + RabbitSettings.DECLARE + "=create to let "
                + "Switchboard create it");
    }

    /**
     * Declares the exchange unless it exists: passive first, so that an exchange another application declared (of any
     * type, with any arguments) is used as it is; a missing one is made durable, of {@code type}.
     */
    public static void ensureExchange(RabbitAdapter adapter, String exchange, String type) {
        if (exchange.isEmpty() || exchangeExists(adapter, exchange)) {
            return;
        }
        adapter.withChannel("declare exchange '" + exchange + "'", ch -> ch.exchangeDeclare(exchange, type, true));
        log.info("Declared the {} exchange '{}' on RabbitMQ at {}", type, exchange, adapter.printableUri());
    }

    /**
     * Declares a group queue of Switchboard's own layout on the consumer's channel, unless it exists with arguments
     * other than {@code arguments}: then it is used as its owner declared it and not declared on the consumer's
     * channel (so topology recovery never declares it with Switchboard's arguments). The probe is a declare on a
     * channel of its own, whose failure (precondition failed: other arguments) closes only that channel.
     */
    static void declareGroupQueue(RabbitAdapter adapter, Channel channel, String queue, Map<String, Object> arguments)
            throws IOException {
        boolean same = adapter.withChannel("look for queue '" + queue + "'", ch -> {
            try {
                ch.queueDeclare(queue, true, false, false, arguments);
                return true;
            } catch (IOException e) {
                if (AmqpErrors.replyCode(e) == AmqpErrors.PRECONDITION_FAILED) {
                    return false;
                }
                throw e;
            }
        });
        if (same) {
            channel.queueDeclare(queue, true, false, false, arguments); // recorded: recovered with the same arguments
        } else {
            keptOwnersArguments(adapter, queue, arguments);
        }
    }

    private static void keptOwnersArguments(RabbitAdapter adapter, String queue, Map<String, Object> arguments) {
        if (LOGGED.add(adapter.printableUri() + " " + queue)) {
            log.info("Queue '{}' exists on RabbitMQ at {} as another application declared it: Switchboard uses it as it is, "
                    + "and its own queue arguments {} were not applied", queue, adapter.printableUri(), arguments);
        }
    }

    /**
     * Checks a publisher's settings and, as its {@value RabbitSettings#DECLARE} says, declares or checks the exchange
     * it publishes to. A publisher in Switchboard's own layout declares nothing, unless its destination is adopted
     * elsewhere in this adapter (then provisioning left the destination's exchange alone: it is declared if missing).
     *
     * @return the exchange the publisher publishes to
     */
    public static String publisher(RabbitAdapter adapter, String destination, RabbitSettings settings, int partitions) {
        String exchange = settings.exchangeOf(destination);
        String user = "publisher of '" + destination + "'";
        if (exchange.isEmpty() && settings.routingKey == null) {
            throw new ConfigurationException("The " + user + " publishes to the default exchange (" + RabbitSettings.EXCHANGE
                    + " is empty), which routes by queue name: set " + RabbitSettings.ROUTING_KEY + " to the queue's name");
        }
        if (settings.routingKey != null && partitions > 1) {
            throw new ConfigurationException("The " + user + " has " + partitions + " partitions (switchboard.partitions) "
                    + "but a fixed routing key (" + RabbitSettings.ROUTING_KEY + "=" + settings.routingKey + "), which "
                    + "gives partitions up: unset " + RabbitSettings.ROUTING_KEY + " to route by partition, or set "
                    + "switchboard.partitions=1");
        }
        if (settings.declare == Declare.PASSIVE) {
            requireExchange(adapter, exchange, user);
        } else if (settings.declare == Declare.CREATE && adapter.isAdopted(destination)) {
            ensureExchange(adapter, exchange, exchange.equals(destination) ? settings.destinationExchangeType()
                    : settings.adoptedExchangeType);
        }
        return exchange;
    }

    /**
     * Declares (or checks, or takes as they are) the queue of an adopting subscription: {@value RabbitSettings#QUEUE},
     * or the group's {@code <destination>.<group>} bound from {@value RabbitSettings#EXCHANGE}; a broadcast subscriber's
     * own exclusive queue bound from that exchange. One queue: the adopted layout has no partitions.
     *
     * @param channel the consumer's channel
     * @return the queue to consume
     */
    static List<String> declareAdopted(RabbitAdapter adapter, Channel channel, ConsumerSpec spec, RabbitSettings settings,
            int partitions) throws IOException {
        String destination = spec.destination();
        String exchange = settings.exchangeOf(destination);
        String user = "subscription of '" + destination + "' (group '" + spec.group() + "')";
        String layout = settings.queue != null ? RabbitSettings.QUEUE + "=" + settings.queue
                : RabbitSettings.EXCHANGE + "=" + exchange;
        if (partitions > 1) {
            throw new ConfigurationException("The " + user + " has " + partitions + " partitions (switchboard.partitions) "
                    + "but consumes one queue (" + layout + "), which gives partitions up: set switchboard.partitions=1 for "
                    + "it, or unset " + (settings.queue != null ? RabbitSettings.QUEUE : RabbitSettings.EXCHANGE)
                    + " to keep a queue per partition");
        }
        if (spec.broadcast() && settings.queue != null) {
            throw new ConfigurationException("The broadcast " + user + " would share the named queue '" + settings.queue
                    + "' (" + RabbitSettings.QUEUE + ") with every other reader, so it would not get every message: unset "
                    + RabbitSettings.QUEUE + " for a broadcast subscription (it gets its own queue bound from "
                    + RabbitSettings.EXCHANGE + "), or subscribe with a group instead of broadcast()");
        }
        if (exchange.isEmpty() && (settings.queue == null || !settings.bindingKeys.isEmpty())) {
            throw new ConfigurationException("The " + user + " is bound from the default exchange (" + RabbitSettings.EXCHANGE
                    + " is empty), which routes by queue name and takes no bindings: set " + RabbitSettings.QUEUE
                    + " to the queue to consume and leave " + RabbitSettings.BINDING_KEYS + " unset, or name an exchange");
        }
        if (spec.broadcast()) { // the subscriber's own exclusive queue, declared whatever rabbitmq.declare says
            String queue = destination + "." + spec.group();
            if (settings.declare == Declare.PASSIVE) {
                requireExchange(adapter, exchange, user);
            } else if (settings.declare == Declare.CREATE) {
                ensureExchange(adapter, exchange, settings.adoptedExchangeType);
            }
            channel.queueDeclare(queue, false, true, true, settings.broadcastQueueArguments());
            bind(channel, queue, exchange, settings);
            return List.of(queue);
        }
        String queue = settings.queue != null ? settings.queue : destination + "." + spec.group();
        switch (settings.declare) {
            case NONE -> { }
            case PASSIVE -> {
                if (settings.exchange != null) {
                    requireExchange(adapter, exchange, user);
                }
                requireQueue(adapter, queue, user);
            }
            case CREATE -> {
                boolean exists = queueExists(adapter, queue);
                Map<String, Object> arguments = new HashMap<>(settings.queueArguments);
                arguments.putIfAbsent("x-queue-type", settings.quorumQueues() ? "quorum" : "classic");
                if (exists) {
                    if (!settings.queueArguments.isEmpty()) {
                        keptOwnersArguments(adapter, queue, settings.queueArguments);
                    }
                } else {
                    channel.queueDeclare(queue, true, false, false, arguments);
                    log.info("Declared queue '{}' with arguments {} on RabbitMQ at {} for the {}", queue, arguments,
                            adapter.printableUri(), user);
                }
                if (!exchange.isEmpty() && (!exists || !settings.bindingKeys.isEmpty())) {
                    ensureExchange(adapter, exchange, exchange.equals(destination) ? settings.destinationExchangeType()
                            : settings.adoptedExchangeType);
                    bind(channel, queue, exchange, settings);
                }
            }
        }
        return List.of(queue);
    }

    /**
     * Binds the queue from the exchange with {@value RabbitSettings#BINDING_KEYS}, else with the key that takes every
     * message of an exchange of the presumed type: {@code #} (topic), the queue's name (direct, as Spring AMQP binds
     * by default), empty (fanout, headers).
     */
    private static void bind(Channel channel, String queue, String exchange, RabbitSettings settings) throws IOException {
        List<String> keys = settings.bindingKeys;
        if (keys.isEmpty()) {
            keys = List.of(switch (settings.adoptedExchangeType) {
                case "topic" -> RabbitTopology.ALL;
                case "direct" -> queue;
                default -> "";
            });
        }
        for (String key : keys) {
            channel.queueBind(queue, exchange, key);
        }
    }
}
