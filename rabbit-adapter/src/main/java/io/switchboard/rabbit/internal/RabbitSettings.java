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
