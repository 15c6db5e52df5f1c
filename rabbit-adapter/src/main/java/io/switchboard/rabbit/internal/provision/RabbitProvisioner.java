package io.switchboard.rabbit.internal.provision;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import io.switchboard.ConfigurationException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.TagFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Declares destinations (durable topic exchanges, or direct ones with {@code rabbitmq.exchange-type=direct}) and
 * consumer-group queues; deletes them.
 *
 * <p>RabbitMQ drops (or, with {@code mandatory}, returns) what no queue is bound to, so a
 * destination keeps messages only for the groups that exist. {@code ensureDestination} therefore
 * also declares the groups named in {@code rabbitmq.required-groups}, and for a dead-letter
 * destination the group {@code default} (the group a subscriber gets unless it names one), so dead
 * letters are kept even before anyone reads them.
 *
 * <p>AMQP cannot list queues, so {@link #deleteDestination} deletes the exchange and the group
 * queues declared through this adapter or named by the required groups; queues declared by other
 * processes for other groups stay until deleted by name.
 */
public final class RabbitProvisioner implements Provisioner {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RabbitProvisioner.class);
    static final String DEAD_LETTER_GROUP = "default";
    /** Marks a group's filter exchange among the names {@link #deleteDestination} deletes. */
    private static final String FILTER_MARK = "exchange:";

    private final RabbitAdapter adapter;
    private final RabbitSettings settings;
    private final ConcurrentHashMap<String, Set<String>> queues = new ConcurrentHashMap<>();
    private final DelayChain delays;

    public RabbitProvisioner(RabbitAdapter adapter, RabbitSettings settings) {
        this.adapter = adapter;
        this.settings = settings;
        this.delays = new DelayChain(adapter, settings);
    }

    @Override
    public void ensureDestination(DestinationSpec spec) {
        String name = spec.name();
        RabbitSettings effective = settings.with(spec.settings());
        int partitions = adapter.rememberPartitions(name, spec.partitions());
        if (adapter.isAdopted(name) || effective.declare == RabbitSettings.Declare.NONE) {
            log.debug("Destination '{}' adopts names of its own (or {}=none): its publishers and subscriptions declare "
                    + "what they use as their {} says", name, RabbitSettings.DECLARE, RabbitSettings.DECLARE);
            return;
        }
        if (effective.declare == RabbitSettings.Declare.PASSIVE) {
            Adoption.requireExchange(adapter, name, "destination '" + name + "'");
            return;
        }
        adapter.withChannel("declare destination '" + name + "'", channel -> {
            declareExchange(channel, name);
            for (String group : requiredGroups(name, effective)) {
                declareGroup(channel, name, group, partitions, effective, null);
            }
            return null;
        });
    }

    @Override
    public void consumerExpected(io.switchboard.spi.ConsumerSpec spec) {
        adapter.consumerExpected(spec);
    }

    /**
     * Declares a consumer group's durable queues and binds them for the filter (see {@link GroupBindings}),
     * on the given channel (the consumer's own, so that amqp-client re-declares them after a connection loss).
     *
     * @param filter the subscription's filter, or null to keep the group's current one (a required group)
     * @return the queue names, partition by partition
     */
    public List<String> declareGroup(Channel channel, String destination, String group, int partitions,
            RabbitSettings queueSettings, TagFilter filter) throws IOException {
        List<String> names = new ArrayList<>(partitions);
        var arguments = queueSettings.groupQueueArguments(adapter.deadLetterExchangeOf(destination));
        arguments.putAll(queueSettings.queueArguments);
        for (int p = 0; p < partitions; p++) {
            String queue = RabbitTopology.groupQueue(destination, group, partitions, p);
            Adoption.declareGroupQueue(adapter, channel, queue, arguments);
            names.add(queue);
        }
        Set<String> declared = queues.computeIfAbsent(destination, d -> ConcurrentHashMap.newKeySet());
        if (settings.directExchanges) {
            GroupBindings.bindDirect(channel, destination, names);
            declared.addAll(names);
            return names;
        }
        String filterExchange = GroupBindings.filterExchange(destination, group);
        if (filter != null && !filter.matchesAll()) {
            declared.add(declareFilteredOut(channel, destination, queueSettings));
        }
        GroupBindings.bind(channel, destination, group, names, filter, filter == null && exchangeExists(filterExchange));
        declared.addAll(names);
        declared.add(FILTER_MARK + filterExchange);
        return names;
    }

    /** See {@link Adoption#declareAdopted}. */
    public List<String> declareAdopted(Channel channel, io.switchboard.spi.ConsumerSpec spec, RabbitSettings queueSettings,
            int partitions) throws IOException {
        return Adoption.declareAdopted(adapter, channel, spec, queueSettings, partitions);
    }

    /**
     * The queues of a subscription in Switchboard's own layout with {@value RabbitSettings#DECLARE}{@code =passive}
     * (checked to exist, with the destination's exchange; bound as whoever declared them bound them) or {@code none}.
     * A broadcast subscriber needs a queue of its own, bound: refused.
     */
    public List<String> groupQueues(io.switchboard.spi.ConsumerSpec spec, RabbitSettings queueSettings, int partitions) {
        String destination = spec.destination();
        String user = "subscription of '" + destination + "' (group '" + spec.group() + "')";
        boolean passive = queueSettings.declare == RabbitSettings.Declare.PASSIVE;
        if (passive) {
            Adoption.requireExchange(adapter, destination, user);
        }
        if (spec.broadcast()) {
            throw new ConfigurationException("The broadcast " + user + " needs a queue of its own bound to '" + destination
                    + "', which " + RabbitSettings.DECLARE + "=" + queueSettings.declare.name().toLowerCase(java.util.Locale.ROOT)
                    + " does not declare: set " + RabbitSettings.DECLARE + "=create for it");
        }
        List<String> names = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            String queue = RabbitTopology.groupQueue(destination, spec.group(), partitions, p);
            if (passive) {
                Adoption.requireQueue(adapter, queue, user);
            }
            names.add(queue);
        }
        return names;
    }

    /** Binds a broadcast subscriber's exclusive queue to the destination, for its filter. */
    public void bindBroadcast(Channel channel, String destination, String queue, TagFilter filter, RabbitSettings queueSettings)
            throws IOException {
        if (settings.directExchanges) {
            GroupBindings.bindBroadcastDirect(channel, destination, queue, adapter.partitions(destination));
            return;
        }
        if (!filter.matchesAll()) {
            queues.computeIfAbsent(destination, d -> ConcurrentHashMap.newKeySet())
                    .add(declareFilteredOut(channel, destination, queueSettings));
        }
        GroupBindings.bindBroadcast(channel, destination, queue, filter);
    }

    /**
     * Declares the destination's filtered-out queue {@code <destination>:filtered-out}, bound with {@code #} and
     * holding nothing ({@code x-max-length=0}): once a subscription filters a destination, a message that no
     * filter selects is still routed (to this queue, which drops it), so its publish succeeds as on a broker that
     * stores it and filters on delivery, instead of failing as unroutable.
     */
    private static String declareFilteredOut(Channel channel, String destination, RabbitSettings queueSettings)
            throws IOException {
        String queue = destination + ":filtered-out";
        channel.queueDeclare(queue, true, false, false, Map.of("x-queue-type", queueSettings.quorumQueues() ? "quorum"
                : "classic", "x-max-length", 0));
        channel.queueBind(queue, destination, RabbitTopology.ALL);
        return queue;
    }

    /**
     * Declares a destination's exchange of the instance's type. An exchange of that name and another type (a
     * destination made with the other {@value RabbitSettings#EXCHANGE_TYPE}, or by another application) fails
     * with an error naming both ways out.
     */
    private void declareExchange(Channel channel, String name) throws IOException {
        BuiltinExchangeType type = settings.directExchanges ? BuiltinExchangeType.DIRECT : BuiltinExchangeType.TOPIC;
        try {
            channel.exchangeDeclare(name, type, true);
        } catch (IOException e) {
            if (AmqpErrors.replyCode(e) != AmqpErrors.PRECONDITION_FAILED) {
                throw e;
            }
            String other = type == BuiltinExchangeType.DIRECT ? "topic" : "direct";
            throw new ConfigurationException("Destination '" + name + "' exists on RabbitMQ at " + adapter.printableUri()
                    + " as an exchange that is not a durable " + type.getType() + " exchange (" + AmqpErrors.describe(e)
                    + "), so " + RabbitSettings.EXCHANGE_TYPE + "=" + type.getType() + " cannot use it. Set "
                    + RabbitSettings.EXCHANGE_TYPE + "=" + other + " if it was made with that type, or delete the exchange "
                    + "(its group queues keep their messages and are bound again)", e);
        }
    }

    /** The delayed-delivery chain of this broker, declared on first use. */
    public DelayChain delays() {
        return delays;
    }

    private boolean exchangeExists(String exchange) {
        return Adoption.exchangeExists(adapter, exchange);
    }

    @Override
    public void deleteDestination(String name) {
        Set<String> toDelete = new LinkedHashSet<>();
        Set<String> declared = queues.remove(name);
        if (declared != null) {
            toDelete.addAll(declared);
        }
        int partitions = adapter.partitions(name);
        for (String group : requiredGroups(name, settings)) {
            for (int p = 0; p < partitions; p++) {
                toDelete.add(RabbitTopology.groupQueue(name, group, partitions, p));
            }
        }
        adapter.withChannel("delete destination '" + name + "'", channel -> {
            for (String queue : toDelete) {
                if (queue.startsWith(FILTER_MARK)) {
                    channel.exchangeDelete(queue.substring(FILTER_MARK.length()));
                } else {
                    channel.queueDelete(queue);
                }
            }
            channel.exchangeDelete(name);
            return null;
        });
        adapter.forgetPartitions(name);
        delays.forget(name);
    }

    private Set<String> requiredGroups(String destination, RabbitSettings effective) {
        Set<String> groups = new LinkedHashSet<>(effective.requiredGroups);
        if (adapter.isDeadLetterDestination(destination)) {
            groups.add(DEAD_LETTER_GROUP);
        }
        return groups;
    }
}
