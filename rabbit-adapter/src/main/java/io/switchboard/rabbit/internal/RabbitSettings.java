package io.switchboard.rabbit.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The RabbitMQ properties of one broker instance (or one publisher or subscription, whose
 * properties override the instance's), parsed and checked once. Every error names the property,
 * the value (the URI's password masked) and the expected form.
 */
final class RabbitSettings {

    static final String URI = "rabbitmq.uri";
    static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/";
    /** Core's property for the partitions of a destination; RabbitMQ reads it too (see {@link #partitions()}). */
    static final String PARTITIONS = "switchboard.partitions";
    /**
     * Partitions off unless asked for: one group queue bound with {@code #}, so that a plain AMQP
     * publisher reaches every group whatever routing key it uses.
     */
    static final int DEFAULT_PARTITIONS = 1;
    private static final Set<String> QUEUE_TYPES = Set.of("classic", "quorum");
    private static final Set<String> OVERFLOWS = Set.of("drop-head", "reject-publish", "reject-publish-dlx");

    final BrokerConfig config;
    final String uri;
    final String connectionName;
    final Duration recoveryInterval;
    final int publisherChannels;
    final int maxOutstandingConfirms;
    final Duration publishTimeout;
    final Duration connectTimeout;
    final String queueType;
    final boolean lazy;
    final long maxLength;
    final String overflow;
    final int deliveryLimit;
    final boolean singleActiveConsumer;
    final int maxMessageSize;
    final List<String> requiredGroups;

    RabbitSettings(BrokerConfig config) {
        this.config = config;
        this.uri = checkedUri(config);
        this.connectionName = config.get("rabbitmq.connection-name", "switchboard-" + config.instanceName());
        this.recoveryInterval = positive(config, "rabbitmq.recovery-interval", config.getDuration(
                "rabbitmq.recovery-interval", Duration.ofSeconds(1)));
        this.connectTimeout = positive(config, "rabbitmq.connect-timeout", config.getDuration(
                "rabbitmq.connect-timeout", Duration.ofSeconds(10)));
        this.publisherChannels = atLeast(config, "rabbitmq.publisher-channels", 1, 2);
        this.maxOutstandingConfirms = atLeast(config, "rabbitmq.max-outstanding-confirms", 1, 1000);
        this.publishTimeout = positive(config, "rabbitmq.publish-timeout", config.getDuration(
                "rabbitmq.publish-timeout", Duration.ofSeconds(30)));
        this.queueType = oneOf(config, "rabbitmq.queue-type", "classic", QUEUE_TYPES);
        this.lazy = config.getBoolean("rabbitmq.lazy", false);
        this.maxLength = config.getLong("rabbitmq.max-length", 0);
        this.overflow = config.get("rabbitmq.overflow") == null ? null
                : oneOf(config, "rabbitmq.overflow", "drop-head", OVERFLOWS);
        this.deliveryLimit = config.getInt("rabbitmq.delivery-limit", 0);
        this.singleActiveConsumer = config.getBoolean("rabbitmq.single-active-consumer", false);
        this.maxMessageSize = atLeast(config, "rabbitmq.max-message-size", 1, 4 * 1024 * 1024);
        this.requiredGroups = Arrays.stream(config.get("rabbitmq.required-groups", "").split(","))
                .map(String::trim).filter(g -> !g.isEmpty()).toList();
        if (lazy && queueType.equals("quorum")) {
            throw invalid(config, "rabbitmq.lazy", "true", "false with rabbitmq.queue-type=quorum (quorum queues keep "
                    + "their messages on disk already; lazy mode is for classic queues)");
        }
        if (deliveryLimit > 0 && !queueType.equals("quorum")) {
            throw invalid(config, "rabbitmq.delivery-limit", Integer.toString(deliveryLimit),
                    "unset unless rabbitmq.queue-type=quorum (only quorum queues count deliveries)");
        }
        if (maxLength < 0) {
            throw invalid(config, "rabbitmq.max-length", Long.toString(maxLength), "0 (no limit) or a positive number of messages");
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
        return atLeast(config, PARTITIONS, 1, DEFAULT_PARTITIONS);
    }

    /** The same settings with a publisher's or subscription's own properties on top. */
    RabbitSettings with(Map<String, String> overrides) {
        return overrides.isEmpty() ? this : new RabbitSettings(config.with(overrides));
    }

    /** The URI for printing: password masked. */
    String printableUri() {
        return BrokerConfig.printable(URI, uri);
    }

    /**
     * Arguments of a consumer-group queue: type, lazy mode, length limit and overflow, delivery
     * limit, single active consumer, and the dead-letter exchange the broker uses for what it drops
     * itself (overflow, delivery limit); null when the queue feeds no dead-letter destination.
     */
    Map<String, Object> groupQueueArguments(String deadLetterExchange) {
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
        }
        return args;
    }

    /** Arguments of a broadcast subscriber's exclusive queue: always classic, with the length limit. */
    Map<String, Object> broadcastQueueArguments() {
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
        throw invalid(config, URI, value, "an AMQP URI such as amqp://user:password@host:5672/vhost");
    }

    private static String oneOf(BrokerConfig config, String key, String defaultValue, Set<String> allowed) {
        String value = config.get(key, defaultValue).trim().toLowerCase(Locale.ROOT);
        if (!allowed.contains(value)) {
            throw invalid(config, key, value, "one of " + allowed);
        }
        return value;
    }

    private static int atLeast(BrokerConfig config, String key, int min, int defaultValue) {
        int value = config.getInt(key, defaultValue);
        if (value < min) {
            throw invalid(config, key, Integer.toString(value), "at least " + min);
        }
        return value;
    }

    private static Duration positive(BrokerConfig config, String key, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw invalid(config, key, value.toString(), "a positive duration such as 1s");
        }
        return value;
    }

    private static ConfigurationException invalid(BrokerConfig config, String key, String value, String expected) {
        return new ConfigurationException("Broker instance '" + config.instanceName() + "' (rabbitmq): property '" + key
                + "' is '" + BrokerConfig.printable(key, value) + "' but must be " + expected);
    }
}
