package io.switchboard.rabbit.internal;

import com.rabbitmq.client.Address;
import io.switchboard.spi.BrokerConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The RabbitMQ properties of one broker instance (or one publisher or subscription, whose
 * properties override the instance's), parsed and checked once. Every error names the property,
 * the value (the URI's password masked) and the expected form.
 */
public final class RabbitSettings {

    public static final String URI = "rabbitmq.uri";
    static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/";
    static final String ADDRESSES = "rabbitmq.addresses";
    static final String QUEUE_TYPE = "rabbitmq.queue-type";
    /** The type of a destination's exchange: {@code topic} (default) or {@code direct}. */
    public static final String EXCHANGE_TYPE = "rabbitmq.exchange-type";
    /** Core's property for the partitions of a destination; RabbitMQ reads it too (see {@link #partitions()}). */
    static final String PARTITIONS = "switchboard.partitions";
    /**
     * Partitions off unless asked for: one group queue bound with {@code #}, so that a plain AMQP
     * publisher reaches every group whatever routing key it uses.
     */
    static final int DEFAULT_PARTITIONS = 1;
    private static final Set<String> QUEUE_TYPES = Set.of("classic", "quorum");
    private static final Set<String> EXCHANGE_TYPES = Set.of("topic", "direct");
    private static final Set<String> OVERFLOWS = Set.of("drop-head", "reject-publish", "reject-publish-dlx");
    /** What a publisher or subscription declares: {@code create} (default), {@code passive} or {@code none}. */
    public static final String DECLARE = "rabbitmq.declare";
    /** The exchange a publisher publishes to and a subscription's queue is bound from; empty: the default exchange. */
    public static final String EXCHANGE = "rabbitmq.exchange";
    /** The type of an exchange named by {@value #EXCHANGE} that Switchboard creates (with {@code declare=create}). */
    public static final String ADOPTED_EXCHANGE_TYPE = "rabbitmq.adopted-exchange-type";
    /** A publisher's fixed routing key. */
    public static final String ROUTING_KEY = "rabbitmq.routing-key";
    /** The named queue a subscription consumes. */
    public static final String QUEUE = "rabbitmq.queue";
    /** The binding keys of a named (or adopted-exchange) queue, comma-separated. */
    public static final String BINDING_KEYS = "rabbitmq.binding-keys";
    /** Prefix of the arguments of a queue Switchboard creates: {@code rabbitmq.queue-arguments.x-message-ttl=60000}. */
    public static final String QUEUE_ARGUMENTS = "rabbitmq.queue-arguments.";
    private static final Set<String> ADOPTED_EXCHANGE_TYPES = Set.of("direct", "topic", "fanout", "headers");
    /** Queue arguments RabbitMQ reads as 64-bit numbers. */
    private static final Set<String> LONG_ARGUMENTS = Set.of("x-message-ttl", "x-expires", "x-max-length",
            "x-max-length-bytes", "x-max-age-bytes", "x-stream-max-segment-size-bytes", "x-initial-cluster-size");
    /** Queue arguments RabbitMQ reads as 32-bit numbers. */
    private static final Set<String> INT_ARGUMENTS = Set.of("x-delivery-limit", "x-max-priority",
            "x-quorum-initial-group-size");

    /** {@value #DECLARE}: what a publisher or subscription declares on the broker. */
    public enum Declare {
        /** Declares what it uses (an existing queue is used as it is). */
        CREATE,
        /** Declares nothing; checks with passive declares that what it uses exists. */
        PASSIVE,
        /** Declares and checks nothing. */
        NONE
    }

    public final BrokerConfig config;
    public final String uri;
    /**
     * The nodes of a cluster from {@value #ADDRESSES}, in the order given; empty when unset (the
     * URI's host and port are then the only address).
     */
    public final List<Address> addresses;
    public final String connectionName;
    public final Duration recoveryInterval;
    public final int publisherChannels;
    public final int maxOutstandingConfirms;
    public final Duration publishTimeout;
    public final Duration connectTimeout;
    final String queueType;
    final boolean lazy;
    final long maxLength;
    final String overflow;
    final int deliveryLimit;
    final boolean singleActiveConsumer;
    final int maxMessageSize;
    public final List<String> requiredGroups;
    /**
     * {@value #EXCHANGE_TYPE}{@code =direct}: destinations are direct exchanges, routed by partition alone, and tag
     * filters apply in the client (see {@code RabbitTopology}).
     */
    public final boolean directExchanges;
    /** {@value #DECLARE}, default {@link Declare#CREATE}. */
    public final Declare declare;
    /** {@value #EXCHANGE}, null when unset (the destination's own exchange); empty for the default exchange. */
    public final String exchange;
    /** {@value #ADOPTED_EXCHANGE_TYPE}, default the instance's exchange type. */
    public final String adoptedExchangeType;
    /** {@value #ROUTING_KEY}, null when unset (the partition's routing key). */
    public final String routingKey;
    /** {@value #QUEUE}, null when unset (the group's queues {@code <destination>.<group>}). */
    public final String queue;
    /** {@value #BINDING_KEYS}, empty when unset. */
    public final List<String> bindingKeys;
    /** The {@value #QUEUE_ARGUMENTS}{@code *} arguments, typed as RabbitMQ expects them. */
    public final Map<String, Object> queueArguments;

    RabbitSettings(BrokerConfig config) {
        this.config = config;
        this.uri = checkedUri(config);
        this.addresses = addresses(config);
        this.connectionName = config.get("rabbitmq.connection-name", "switchboard-" + config.instanceName());
        this.recoveryInterval = config.getPositiveDuration("rabbitmq.recovery-interval", Duration.ofSeconds(1));
        this.connectTimeout = config.getPositiveDuration("rabbitmq.connect-timeout", Duration.ofSeconds(10));
        this.publisherChannels = config.getInt("rabbitmq.publisher-channels", 1, 2);
        this.maxOutstandingConfirms = config.getInt("rabbitmq.max-outstanding-confirms", 1, 1000);
        this.publishTimeout = config.getPositiveDuration("rabbitmq.publish-timeout", Duration.ofSeconds(30));
        this.queueType = config.getOneOf(QUEUE_TYPE, "classic", QUEUE_TYPES);
        this.lazy = config.getBoolean("rabbitmq.lazy", false);
        this.maxLength = config.getLong("rabbitmq.max-length", 0);
        this.overflow = config.get("rabbitmq.overflow") == null ? null
                : config.getOneOf("rabbitmq.overflow", "drop-head", OVERFLOWS);
        this.deliveryLimit = config.getInt("rabbitmq.delivery-limit", 0);
        this.singleActiveConsumer = config.getBoolean("rabbitmq.single-active-consumer", false);
        this.maxMessageSize = config.getInt("rabbitmq.max-message-size", 1, 4 * 1024 * 1024);
        this.requiredGroups = Arrays.stream(config.get("rabbitmq.required-groups", "").split(","))
                .map(String::trim).filter(g -> !g.isEmpty()).toList();
        this.directExchanges = config.getOneOf(EXCHANGE_TYPE, "topic", EXCHANGE_TYPES).equals("direct");
        this.declare = Declare.valueOf(config.getOneOf(DECLARE, "create", Set.of("create", "passive", "none"))
                .toUpperCase(Locale.ROOT));
        this.exchange = config.get(EXCHANGE) == null ? null : config.get(EXCHANGE).trim();
        this.adoptedExchangeType = config.getOneOf(ADOPTED_EXCHANGE_TYPE, directExchanges ? "direct" : "topic",
                ADOPTED_EXCHANGE_TYPES);
        this.routingKey = config.get(ROUTING_KEY);
        String named = config.get(QUEUE);
        if (named != null && named.isBlank()) {
            throw config.invalid(QUEUE, named, "the name of the queue to consume, such as shop.orders.billing; unset it "
                    + "to consume the group's own queue <destination>.<group>");
        }
        this.queue = named == null ? null : named.trim();
        this.bindingKeys = Arrays.stream(config.get(BINDING_KEYS, "").split(",")).map(String::trim)
                .filter(k -> !k.isEmpty()).toList();
        this.queueArguments = queueArguments(config);
        if (lazy && queueType.equals("quorum")) {
            throw config.invalid("rabbitmq.lazy", "true", "false with rabbitmq.queue-type=quorum (quorum queues keep "
                    + "their messages on disk already; lazy mode is for classic queues)");
        }
        if (deliveryLimit > 0 && !queueType.equals("quorum")) {
            throw config.invalid("rabbitmq.delivery-limit", Integer.toString(deliveryLimit),
                    "unset unless rabbitmq.queue-type=quorum (only quorum queues count deliveries)");
        }
        if (maxLength < 0) {
            throw config.invalid("rabbitmq.max-length", Long.toString(maxLength), "0 (no limit) or a positive number of messages");
        }
    }

    /**
     * The {@value #QUEUE_ARGUMENTS}{@code *} properties as queue arguments: the numeric ones RabbitMQ knows
     * ({@code x-message-ttl}, {@code x-max-length}, {@code x-expires}, {@code x-max-length-bytes}: Long;
     * {@code x-delivery-limit}, {@code x-max-priority}: Integer) as numbers, {@code true}/{@code false} as Boolean,
     * everything else as text.
     */
    private static Map<String, Object> queueArguments(BrokerConfig config) {
        Map<String, Object> args = new java.util.LinkedHashMap<>();
        config.withPrefix(QUEUE_ARGUMENTS).forEach((name, raw) -> {
            String value = raw.trim();
            try {
                if (LONG_ARGUMENTS.contains(name)) {
                    args.put(name, Long.parseLong(value));
                } else if (INT_ARGUMENTS.contains(name)) {
                    args.put(name, Integer.parseInt(value));
                } else if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
                    args.put(name, Boolean.parseBoolean(value));
                } else {
                    args.put(name, value);
                }
            } catch (NumberFormatException e) {
                throw config.invalid(QUEUE_ARGUMENTS + name, raw, "a whole number (RabbitMQ reads " + name + " as one), "
                        + "such as 60000");
            }
        });
        return java.util.Collections.unmodifiableMap(args);
    }

    /**
     * Whether a publisher or subscription with these settings adopts names it does not own: a named queue, an
     * exchange other than its destination's, a fixed routing key, or declarations other than {@code create}.
     *
     * @param destination the publisher's or subscription's destination
     */
    public boolean adopts(String destination) {
        return queue != null || routingKey != null || declare != Declare.CREATE
                || exchange != null && !exchange.equals(destination);
    }

    /** The type of a destination's own exchange, as {@value #EXCHANGE_TYPE} says: {@code topic} or {@code direct}. */
    public String destinationExchangeType() {
        return directExchanges ? "direct" : "topic";
    }

    /** The exchange a publisher publishes to and a subscription binds from: {@value #EXCHANGE}, else the destination. */
    public String exchangeOf(String destination) {
        return exchange != null ? exchange : destination;
    }

    /**
     * Partitions of a destination this adapter has not provisioned itself (or, when a publisher's or
     * subscription's own properties set it, of that publisher or subscription): core's
     * {@code switchboard.partitions}, default {@value #DEFAULT_PARTITIONS}, the count core
     * auto-provisions with on RabbitMQ. Read when needed, not at start, so that a malformed value is
     * reported where core reports it.
     */
    int partitions() {
        return config.getInt(PARTITIONS, 1, DEFAULT_PARTITIONS);
    }

    /** The same settings with a publisher's or subscription's own properties on top. */
    public RabbitSettings with(Map<String, String> overrides) {
        if (overrides.isEmpty()) {
            return this;
        }
        RabbitSettings own = new RabbitSettings(config.with(overrides));
        if (own.directExchanges != directExchanges) {
            throw own.config.invalid(EXCHANGE_TYPE, overrides.get(EXCHANGE_TYPE), "unset on a publisher or subscription: "
                    + "every publisher and subscriber of a broker instance must route alike, so set it on the instance");
        }
        return own;
    }

    /**
     * The same settings without what adopts names ({@value #DECLARE}, {@value #EXCHANGE}, {@value #ROUTING_KEY},
     * {@value #QUEUE}, {@value #BINDING_KEYS}, {@value #QUEUE_ARGUMENTS}{@code *}, {@value #ADOPTED_EXCHANGE_TYPE}):
     * for core's own destinations (dead letters, broker-side retries), which a subscription's properties reach too but
     * which always live in Switchboard's own layout.
     */
    public RabbitSettings ownLayout() {
        Map<String, String> kept = new java.util.LinkedHashMap<>(config.properties());
        if (!kept.keySet().removeIf(RabbitSettings::adoptsNames)) {
            return this;
        }
        return new RabbitSettings(new BrokerConfig(config.instanceName(), config.adapterId(), kept, config.events()));
    }

    /** Whether a property is one of those that adopt names (see {@link #ownLayout()}). */
    static boolean adoptsNames(String key) {
        return key.equals(DECLARE) || key.equals(EXCHANGE) || key.equals(ROUTING_KEY) || key.equals(QUEUE)
                || key.equals(BINDING_KEYS) || key.equals(ADOPTED_EXCHANGE_TYPE) || key.startsWith(QUEUE_ARGUMENTS);
    }

    /** Whether the properties hold one that only a subscription uses (so a publisher made with them is core's own). */
    public static boolean hasSubscriptionOnly(Map<String, String> properties) {
        return properties.keySet().stream().anyMatch(k -> k.equals(QUEUE) || k.equals(BINDING_KEYS)
                || k.startsWith(QUEUE_ARGUMENTS));
    }

    /** The URI for printing, password masked, followed by the cluster's addresses when {@value #ADDRESSES} is set. */
    public String printableUri() {
        String printable = BrokerConfig.printable(URI, uri);
        return addresses.isEmpty() ? printable : printable + " (" + ADDRESSES + " " + joined(addresses) + ")";
    }

    /**
     * The warning for a configuration that cannot keep acknowledged messages through the loss of a
     * node: several addresses (a cluster) with classic group queues, which live on one node only.
     * Empty when there is nothing to warn about.
     */
    Optional<String> clusterWarning() {
        if (addresses.size() < 2 || !queueType.equals("classic")) {
            return Optional.empty();
        }
        return Optional.of("Broker instance '" + config.instanceName() + "' (rabbitmq): property '" + ADDRESSES
                + "' names " + addresses.size() + " nodes (a cluster) but property '" + QUEUE_TYPE + "' is 'classic': a "
                + "group's classic queue lives on the one node that declared it, so while that node is down the queue and its "
                + "messages are unavailable, and messages not yet written to its disk are lost with it. Set " + QUEUE_TYPE + "=quorum (replicated on every node, survives the loss of a "
                + "minority); queues that exist already keep their type: delete them first");
    }

    private static String joined(List<Address> addresses) {
        return String.join(",", addresses.stream().map(a -> a.getHost() + ":" + a.getPort()).toList());
    }

    /**
     * Arguments of a consumer-group queue: type, lazy mode, length limit and overflow, delivery
     * limit, single active consumer, and the dead-letter exchange the broker uses for what it drops
     * itself (overflow, delivery limit); null when the queue feeds no dead-letter destination. With direct
     * exchanges what the broker dead-letters goes with routing key {@code "0"}, which the dead-letter destination's
     * first partition is bound with (the record's own partition may not exist there).
     */
    public Map<String, Object> groupQueueArguments(String deadLetterExchange) {
        Map<String, Object> args = new HashMap<>();
        args.put("x-queue-type", queueType);
        if (lazy) {
            args.put("x-queue-mode", "lazy");
        }
        if (maxLength > 0) {
            args.put("x-max-length", maxLength);
        }
        if (overflow != null) {
            args.put("x-overflow", overflow);
        }
        if (deliveryLimit > 0) {
            args.put("x-delivery-limit", deliveryLimit);
        }
        if (singleActiveConsumer) {
            args.put("x-single-active-consumer", true);
        }
        if (deadLetterExchange != null) {
            args.put("x-dead-letter-exchange", deadLetterExchange);
            if (directExchanges) {
                args.put("x-dead-letter-routing-key", "0");
            }
        }
        return args;
    }

    /** Arguments of a broadcast subscriber's exclusive queue: always classic, with the length limit. */
    public Map<String, Object> broadcastQueueArguments() {
        Map<String, Object> args = new HashMap<>();
        args.put("x-queue-type", "classic");
        if (maxLength > 0) {
            args.put("x-max-length", maxLength);
        }
        return args;
    }

    private static String checkedUri(BrokerConfig config) {
        String value = config.get(URI, DEFAULT_URI).trim();
        try {
            java.net.URI parsed = new URI(value);
            String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("amqp") || scheme.equals("amqps")) && parsed.getHost() != null) {
                return value;
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw config.invalid(URI, value, "an AMQP URI such as amqp://user:password@host:5672/vhost");
    }

    /**
     * Parses {@value #ADDRESSES}: {@code host[:port]} entries separated by commas; a missing port is
     * the URI scheme's default (5672, or 5671 for amqps). An IPv6 address goes in brackets.
     */
    private static List<Address> addresses(BrokerConfig config) {
        String value = config.get(ADDRESSES, "").trim();
        if (value.isEmpty()) {
            return List.of();
        }
        int defaultPort = config.get(URI, DEFAULT_URI).trim().toLowerCase(Locale.ROOT).startsWith("amqps:") ? 5671 : 5672;
        List<Address> parsed = new ArrayList<>();
        for (String entry : value.split(",")) {
            String address = entry.trim();
            try {
                java.net.URI hostPort = new URI("amqp://" + address);
                if (address.isEmpty() || hostPort.getHost() == null || hostPort.getPort() > 65_535
                        || !hostPort.getRawPath().isEmpty() || hostPort.getRawUserInfo() != null || hostPort.getRawQuery() != null
                        || hostPort.getRawFragment() != null) {
                    throw new URISyntaxException(address, "not host[:port]");
                }
                String host = hostPort.getHost();
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
                parsed.add(new Address(host, hostPort.getPort() > 0 ? hostPort.getPort() : defaultPort));
            } catch (URISyntaxException e) {
                throw config.invalid(ADDRESSES, value, "a comma-separated list of host:port (port optional, default "
                        + defaultPort + "), such as node1:5672,node2:5672,node3:5672; '" + address + "' is not");
            }
        }
        return List.copyOf(parsed);
    }

    /** Whether group queues (and the delay levels) are quorum queues. */
    public boolean quorumQueues() {
        return queueType.equals("quorum");
    }

    /** Whether a nack can mean "full" (a length limit with reject-publish): then it fails at once instead of going again. */
    public boolean nackMeansFull() {
        return maxLength > 0 && overflow != null && overflow.startsWith("reject-publish");
    }
}
