package io.switchboard.rocketmq.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.rocketmq.internal.client.AclCredentials;
import io.switchboard.rocketmq.internal.client.TlsSupport;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.ClusterCheck;
import java.time.Duration;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;

/**
 * The adapter's properties, read and checked once when the adapter is created. Every property is
 * documented on {@link io.switchboard.rocketmq.RocketMqAdapterFactory}. The secret key stays inside
 * {@link AclCredentials}, whose {@code toString()} masks it, so this record's {@code toString()} never shows it.
 */
public record RocketMqSettings(
        String instanceName,
        String nameServer,
        String producerGroup,
        Duration sendTimeout,
        int maxPendingSends,
        Duration bufferTimeout,
        int maxMessageSize,
        int consumeThreads,
        boolean consumeConcurrently,
        boolean groupPerDestination,
        String cluster,
        Duration adminTimeout,
        Duration timerPrecision,
        Duration routeRefresh,
        ClusterCheck clusterCheck,
        boolean consumeThreadsConfigured,
        boolean shareConsumeThreads,
        AclCredentials credentials,
        boolean tls,
        ClientEvents events) {

    public static final String NAME_SERVER = "rocketmq.namesrv-addr";
    static final String PRODUCER_GROUP = "rocketmq.producer-group";
    static final String SEND_TIMEOUT = "rocketmq.send-timeout";
    public static final String MAX_PENDING_SENDS = "rocketmq.max-pending-sends";
    public static final String BUFFER_TIMEOUT = "rocketmq.buffer-timeout";
    static final String MAX_MESSAGE_SIZE = "rocketmq.max-message-size";
    static final String CONSUME_THREADS = "rocketmq.consume-threads";
    public static final String CONSUME_MODE = "rocketmq.consume-mode";
    static final String GROUP_PER_DESTINATION = "rocketmq.group-per-destination";
    public static final String CLUSTER = "rocketmq.cluster";
    public static final String ADMIN_TIMEOUT = "rocketmq.admin-timeout";
    static final String TIMER_PRECISION = "rocketmq.timer-precision";
    static final String ROUTE_REFRESH = "rocketmq.route-refresh";
    static final String SHARE_CONSUME_THREADS = "rocketmq.share-consume-threads";
    public static final String ACCESS_KEY = AclCredentials.ACCESS_KEY;
    public static final String SECRET_KEY = AclCredentials.SECRET_KEY;
    public static final String TLS = "rocketmq.tls";
    /** Publisher property (or message header) giving the RocketMQ tag of published messages. */
    public static final String TAG = "rocketmq.tag";

    /**
     * How often clients ask the name server for their topics' routes: RocketMQ's default is 30 s,
     * which is also how long publishing stalls after a master fails over (measured on a controller-mode
     * group: the new master is elected within a second, clients find it at their next refresh).
     */
    private static final Duration DEFAULT_ROUTE_REFRESH = Duration.ofSeconds(5);

    /** RocketMQ's own limit (4 MiB) less room for the properties RocketMQ adds to every message. */
    private static final int DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024 - 1024;

    static RocketMqSettings from(BrokerConfig config) {
        String nameServer = config.require(NAME_SERVER,
                "the RocketMQ name server address(es), for example 127.0.0.1:9876 or host1:9876;host2:9876");
        String producerGroup = config.get(PRODUCER_GROUP, defaultProducerGroup(config.instanceName()));
        RocketMqNames.checkGroup(producerGroup, PRODUCER_GROUP);
        return new RocketMqSettings(
                config.instanceName(),
                nameServer.trim(),
                producerGroup,
                config.getPositiveDuration(SEND_TIMEOUT, Duration.ofSeconds(3)),
                config.getInt(MAX_PENDING_SENDS, 1, 1024),
                config.getDuration(BUFFER_TIMEOUT, Duration.ofSeconds(5)),
                config.getInt(MAX_MESSAGE_SIZE, 1, DEFAULT_MAX_MESSAGE_SIZE),
                config.getInt(CONSUME_THREADS, 1, 8),
                concurrently(config),
                config.getBoolean(GROUP_PER_DESTINATION, true),
                config.get(CLUSTER),
                config.getPositiveDuration(ADMIN_TIMEOUT, Duration.ofSeconds(10)),
                config.getPositiveDuration(TIMER_PRECISION, Duration.ofSeconds(1)),
                config.getPositiveDuration(ROUTE_REFRESH, DEFAULT_ROUTE_REFRESH),
                ClusterCheck.of(config),
                config.get(CONSUME_THREADS) != null,
                config.getBoolean(SHARE_CONSUME_THREADS, true),
                credentials(config),
                tls(config),
                config.events());
    }

    /**
     * {@code rocketmq.access-key} and {@code rocketmq.secret-key}: both or neither. The error for one without the
     * other names the one that is set (never the secret key's value) and the one to add.
     */
    private static AclCredentials credentials(BrokerConfig config) {
        String accessKey = blankToNull(config.get(ACCESS_KEY));
        String secretKey = blankToNull(config.get(SECRET_KEY));
        if (accessKey == null && secretKey == null) {
            return AclCredentials.none();
        }
        String instance = "Broker instance '" + config.instanceName() + "' (rocketmq): ";
        if (secretKey == null) {
            throw new ConfigurationException(instance + "property '" + ACCESS_KEY + "' is set (access key '"
                    + accessKey + "') but '" + SECRET_KEY + "' is " + (config.get(SECRET_KEY) == null ? "missing" : "blank")
                    + ": set '" + SECRET_KEY + "' to that user's secret key as well, or remove '" + ACCESS_KEY
                    + "' for a broker without ACL");
        }
        if (accessKey == null) {
            throw new ConfigurationException(instance + "property '" + SECRET_KEY + "' is set but '" + ACCESS_KEY
                    + "' is " + (config.get(ACCESS_KEY) == null ? "missing" : "blank") + ": set '" + ACCESS_KEY
                    + "' to the ACL user (access key) the secret key belongs to, or remove '" + SECRET_KEY
                    + "' for a broker without ACL");
        }
        if (!accessKey.equals(accessKey.strip())) {
            throw new ConfigurationException(instance + "property '" + ACCESS_KEY + "' is '" + accessKey
                    + "', with spaces around it: remove them, RocketMQ would compare them as part of the user name");
        }
        return AclCredentials.of(accessKey, secretKey);
    }

    /**
     * {@code rocketmq.tls}, by default rocketmq-client's own ({@code -Dtls.enable}); refused when TLS could not connect
     * in this JVM.
     */
    private static boolean tls(BrokerConfig config) {
        boolean tls = config.getBoolean(TLS, TlsSystemConfig.tlsEnable);
        String blocker = tls ? TlsSupport.verificationBlocker() : null;
        if (blocker != null) {
            throw new ConfigurationException("Broker instance '" + config.instanceName() + "' (rocketmq): property '"
                    + TLS + "' is 'true' but TLS cannot connect in this JVM: " + blocker);
        }
        return tls;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** {@code switchboard_<instance>}, with characters RocketMQ does not allow in group names replaced. */
    private static String defaultProducerGroup(String instanceName) {
        String name = "switchboard_" + instanceName.replaceAll("[^a-zA-Z0-9_-]", "_");
        return name.length() > 100 ? name.substring(0, 100) : name;
    }

    /** {@code rocketmq.consume-mode}: {@code orderly} (default) or {@code concurrently}. */
    private static boolean concurrently(BrokerConfig config) {
        String mode = config.get(CONSUME_MODE, "orderly").trim();
        if (mode.equalsIgnoreCase("orderly")) {
            return false;
        }
        if (mode.equalsIgnoreCase("concurrently")) {
            return true;
        }
        throw new ConfigurationException("Broker instance '" + config.instanceName() + "' (rocketmq): property '"
                + CONSUME_MODE + "' is '" + mode + "' but must be 'orderly' (per-key order, the default) or "
                + "'concurrently' (more throughput, no order)");
    }

    /**
     * {@return a new request signer with the ACL credentials for one rocketmq-client producer or consumer (given to
     * its constructor), or null without credentials}
     */
    public RPCHook rpcHook() {
        return credentials.rpcHook();
    }

    /**
     * Points a rocketmq-client producer or consumer at the name server, under {@code clientName}, over TLS when
     * {@code rocketmq.tls} is set.
     */
    public void configure(ClientConfig client, String clientName) {
        client.setNamesrvAddr(nameServer);
        client.setUseTLS(tls);
        client.setInstanceName(clientName);
        client.setPollNameServerInterval((int) Math.min(Integer.MAX_VALUE, routeRefresh.toMillis()));
    }

    public int sendTimeoutMillis() {
        return (int) Math.min(Integer.MAX_VALUE, sendTimeout.toMillis());
    }
}
