package io.switchboard.rabbit.internal;

import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.recovery.RecordedBinding;
import com.rabbitmq.client.impl.recovery.RecordedConsumer;
import com.rabbitmq.client.impl.recovery.RecordedExchange;
import com.rabbitmq.client.impl.recovery.RecordedQueue;
import com.rabbitmq.client.impl.recovery.TopologyRecoveryFilter;
import io.switchboard.ConfigurationException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ClusterCheck;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.DestinationNameRule;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RabbitMQ broker instance: two auto-recovering connections opened on first use (one for
 * publishing, one for consuming and administration, so that the broker's flow control on
 * publishers never stalls consumers), the partition counts of the destinations it provisioned,
 * and an event thread for connection loss and recovery work that must not run on amqp-client's
 * own threads.
 */
public final class RabbitAdapter implements BrokerAdapter {

    /** The adapter id. */
    public static final String ID = "rabbitmq";

    private static final Logger log = LoggerFactory.getLogger(RabbitAdapter.class);
    private static final int MAX_NAME = 200;

    private final RabbitSettings settings;
    private final Capabilities capabilities;
    private final ConnectionFactory factory;
    private final ExecutorService events;
    /**
     * Runs the consume connection's deliveries: one thread per busy channel (amqp-client hands a
     * channel's deliveries to one thread at a time), so a handler that core runs on a delivery
     * thread holds back only its own channel, never another subscription's.
     */
    private final ExecutorService deliveries;
    private final ConcurrentHashMap<String, Integer> partitions = new ConcurrentHashMap<>();
    private final RabbitProvisioner provisioner;
    private final Object connecting = new Object();
    private volatile Connection publishConnection;
    private volatile Connection consumeConnection;
    private volatile boolean closing;
    /** The fleet control plane's primitives, made on first use; closed with this adapter. */
    private RabbitControlSupport control;
    /** Why the broker blocks publishing (a memory or disk alarm), or null. */
    private volatile String publishingBlocked;

    /** Reads the configuration; connects on first use. */
    public RabbitAdapter(BrokerConfig config) {
        this.settings = new RabbitSettings(config);
        ClusterCheck check = ClusterCheck.of(config);
        settings.clusterWarning().ifPresent(problem -> check.report(log, problem));
        this.capabilities = Capabilities.builder(ID)
                .orderingPerKey(true)
                .broadcast(true)
                .maxMessageSize(settings.maxMessageSize)
                .defaultPartitions(RabbitSettings.DEFAULT_PARTITIONS)
                .destinationNames(DestinationNameRule.of("[a-zA-Z0-9._-]+", MAX_NAME,
                        "letters, digits, '.', '_' and '-', at most " + MAX_NAME + " characters (queue names derived "
                                + "from it must fit RabbitMQ's 255 bytes)", Set.of(), Set.of("amq.")))
                .build();
        this.factory = connectionFactory(settings, config.instanceName());
        this.events = Executors.newSingleThreadExecutor(daemon("switchboard-rabbit-events-" + config.instanceName()));
        this.deliveries = Executors.newCachedThreadPool(daemon("switchboard-rabbit-deliver-" + config.instanceName()));
        this.provisioner = new RabbitProvisioner(this, settings);
    }

    /**
     * Opens a connection with {@code from}: to the URI's host and port, or, with
     * {@code rabbitmq.addresses}, to the first of those nodes that accepts it, in an order amqp-client
     * shuffles on every attempt (recoveries included, so a client of a dead node recovers on another).
     *
     * @param consumers where the connection runs its consumers, or null for amqp-client's own pool
     */
    Connection newConnection(ConnectionFactory from, ExecutorService consumers, String name) throws IOException, TimeoutException {
        if (settings.addresses.isEmpty()) {
            return consumers == null ? from.newConnection(name) : from.newConnection(consumers, name);
        }
        return consumers == null ? from.newConnection(settings.addresses, name)
                : from.newConnection(consumers, settings.addresses, name);
    }

    private static ConnectionFactory connectionFactory(RabbitSettings settings, String instance) {
        ConnectionFactory factory = new ConnectionFactory();
        RabbitTls.check(settings.config, settings.uri);
        if (RabbitTls.wanted(settings.uri)) {
            // before setUri: with a TLS context set, amqp-client does not install its trust-everything default for amqps
            factory.useSslProtocol(RabbitTls.context(settings.config));
            factory.enableHostnameVerification();
        }
        try {
            factory.setUri(settings.uri);
        } catch (Exception e) {
            throw new ConfigurationException("Broker instance '" + instance + "' (rabbitmq): property 'rabbitmq.uri' is '"
                    + settings.printableUri() + "' but must be a valid AMQP URI (amqp://user:password@host:5672/vhost): "
                    + e.getMessage(), e);
        }
        if (factory.getVirtualHost().isEmpty()) {
            factory.setVirtualHost("/"); // "amqp://host/" names the empty vhost, which RabbitMQ cannot have: mean "/"
        }
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(true);
        factory.setNetworkRecoveryInterval(settings.recoveryInterval.toMillis());
        // One bound for the TCP connect and for the AMQP handshake: a silent peer fails in this time, never hangs.
        // A connection_timeout given in the URI's query (amqp-client's own parameter) is kept for the TCP connect.
        int connectMillis = (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout.toMillis());
        if (!settings.uri.contains("connection_timeout=")) {
            factory.setConnectionTimeout(connectMillis);
        }
        factory.setHandshakeTimeout(connectMillis);
        factory.setTopologyRecoveryFilter(new LiveChannelsOnly());
        factory.setThreadFactory(daemon("switchboard-rabbit-" + instance));
        return factory;
    }

    private static boolean isTlsFailure(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException) {
                return true;
            }
        }
        return false;
    }

    static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public RawPublisher createPublisher(PublisherSpec spec) {
        ensureOpen(spec.destination());
        return new RabbitPublisher(this, spec, settings.with(spec.properties()));
    }

    @Override
    public RawConsumer createConsumer(ConsumerSpec spec) {
        ensureOpen(spec.destination());
        return new RabbitConsumer(this, spec, settings.with(spec.properties()));
    }

    @Override
    public Provisioner provisioner() {
        return provisioner;
    }

    /** Control logs on stream queues and leadership through exclusive queues, on connections of their own. */
    @Override
    public Optional<ControlSupport> control() {
        synchronized (connecting) {
            ensureOpen("(control)");
            if (control == null) {
                control = new RabbitControlSupport(this, settings, factory);
            }
            return Optional.of(control);
        }
    }

    RabbitProvisioner topology() {
        return provisioner;
    }

    /**
     * Partitions of a destination: as provisioned through this adapter (core auto-provisions with
     * {@code switchboard.partitions}, default 1), else the instance's {@code switchboard.partitions}
     * (default 1), remembered so that every publisher and consumer of this adapter agrees.
     */
    int partitions(String destination) {
        Integer known = partitions.get(destination);
        return known != null ? known : partitions.computeIfAbsent(destination, d -> settings.partitions());
    }

    /**
     * Partitions a publisher or consumer uses: its own {@code switchboard.partitions} when its
     * properties set one (the other side must set the same), else {@link #partitions(String)}.
     *
     * @param own the publisher's or subscription's own properties
     * @param effective the settings with those properties on top of the instance's
     */
    int partitions(String destination, Map<String, String> own, RabbitSettings effective) {
        return own.containsKey(RabbitSettings.PARTITIONS) ? effective.partitions() : partitions(destination);
    }

    /** Records the partition count of a destination provisioned here; a known count is kept. */
    int rememberPartitions(String destination, int count) {
        return partitions.putIfAbsent(destination, count) == null ? count : partitions.get(destination);
    }

    void forgetPartitions(String destination) {
        partitions.remove(destination);
    }

    /** The dead-letter destination of a destination, or null when it is one itself. */
    String deadLetterExchangeOf(String destination) {
        return isDeadLetterDestination(destination) ? null : capabilities.deadLetterDestination(destination);
    }

    boolean isDeadLetterDestination(String destination) {
        return destination.endsWith(".dlq");
    }

    Connection publishConnection() {
        Connection connection = publishConnection;
        return connection != null ? connection : connect(true);
    }

    Connection consumeConnection() {
        Connection connection = consumeConnection;
        return connection != null ? connection : connect(false);
    }

    private Connection connect(boolean publishing) {
        synchronized (connecting) {
            ensureOpen("(connection)");
            Connection existing = publishing ? publishConnection : consumeConnection;
            if (existing != null) {
                return existing;
            }
            String name = settings.connectionName + (publishing ? "-publish" : "-consume");
            Connection connection;
            try {
                connection = newConnection(factory, publishing ? null : deliveries, name);
            } catch (AuthenticationFailureException e) {
                throw new SwitchboardException("RabbitMQ at " + printableUri() + " refused the login of user '"
                        + factory.getUsername() + "': " + AmqpErrors.sentence(AmqpErrors.describe(e))
                        + " Fix user and password in property rabbitmq.uri (or create the user: rabbitmqctl add_user)", e);
            } catch (IOException | TimeoutException e) {
                if (AmqpErrors.isConnectionNotAllowed(e)) {
                    throw new SwitchboardException("RabbitMQ at " + printableUri() + " refused user '" + factory.getUsername()
                            + "' access to virtual host '" + factory.getVirtualHost() + "': "
                            + AmqpErrors.sentence(AmqpErrors.describe(e)) + " Create the vhost and grant the user access "
                            + "(rabbitmqctl add_vhost " + factory.getVirtualHost() + "; rabbitmqctl set_permissions -p "
                            + factory.getVirtualHost() + " " + factory.getUsername() + " '.*' '.*' '.*'), or fix the "
                            + "vhost in property rabbitmq.uri", e);
                }
                if (isTlsFailure(e)) {
                    throw new SwitchboardException("The TLS handshake with RabbitMQ at " + printableUri() + " failed: "
                            + AmqpErrors.describe(e) + ". Make " + RabbitTls.TRUSTSTORE + " (with " + RabbitTls.TRUSTSTORE_PASSWORD
                            + " and " + RabbitTls.TRUSTSTORE_TYPE + ") hold the certificate that signed the server's, and "
                            + "check that the server's certificate names the host in rabbitmq.uri", e);
                }
                String what = e instanceof TimeoutException || e instanceof java.net.SocketTimeoutException
                        ? "no AMQP answer within " + settings.connectTimeout + " (property rabbitmq.connect-timeout)"
                        : AmqpErrors.describe(e);
                throw new SwitchboardException("Cannot connect to RabbitMQ at " + printableUri()
                        + (settings.addresses.isEmpty() ? " (property rabbitmq.uri)" : " (none of the addresses answered)") + ": "
                        + what + ". Is the server running? Start it (rabbitmq-server -detached on this "
                        + "machine's Debian package) or point rabbitmq.uri at a running server"
                        + (RabbitTls.wanted(settings.uri) ? "" : "; if that port is a TLS listener, use an amqps:// URI"), e);
            }
            log.info("Connected to RabbitMQ at {} as '{}' (node at {}:{})", printableUri(), name,
                    connection.getAddress().getHostAddress(), connection.getPort());
            if (publishing) {
                connection.addBlockedListener(reason -> {
                    publishingBlocked = reason;
                    log.warn("RabbitMQ at {} blocks publishers: {}", printableUri(), reason);
                }, () -> {
                    publishingBlocked = null;
                    log.info("RabbitMQ at {} accepts publishers again", printableUri());
                });
                publishConnection = connection;
            } else {
                consumeConnection = connection;
            }
            return connection;
        }
    }

    /**
     * UP while every connection this adapter opened is open and the broker does not block
     * publishers; DOWN while a connection is lost (amqp-client is recovering it) or a resource
     * alarm blocks publishing. Before anything was created, opens the consuming connection, waiting
     * at most {@code timeout}.
     */
    @Override
    public BrokerHealth health(Duration timeout) {
        if (closing) {
            return BrokerHealth.down("the RabbitMQ client of this Switchboard is closed");
        }
        if (publishConnection == null && consumeConnection == null) {
            BrokerHealth failed = connectWithin(timeout);
            if (failed != null) {
                return failed;
            }
        }
        for (Connection connection : new Connection[] {publishConnection, consumeConnection}) {
            if (connection != null && !connection.isOpen()) {
                Object cause = connection.getCloseReason() == null ? "closed" : AmqpErrors.describe(connection.getCloseReason());
                return BrokerHealth.down("connection '" + connection.getClientProvidedName() + "' to " + printableUri()
                        + " is lost (" + cause + "); the client reconnects every " + settings.recoveryInterval);
            }
        }
        String blocked = publishingBlocked;
        if (blocked != null) {
            return BrokerHealth.down("RabbitMQ at " + printableUri() + " blocks publishers: " + blocked);
        }
        return BrokerHealth.up("connected to " + printableUri());
    }

    private BrokerHealth connectWithin(Duration timeout) {
        CompletableFuture<Connection> attempt = new CompletableFuture<>();
        Thread connector = new Thread(() -> {
            try {
                attempt.complete(consumeConnection());
            } catch (RuntimeException e) {
                attempt.completeExceptionally(e);
            }
        }, "switchboard-rabbit-health-" + settings.config.instanceName());
        connector.setDaemon(true);
        connector.start();
        try {
            attempt.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return BrokerHealth.down(e.getCause().getMessage());
        } catch (TimeoutException e) {
            return BrokerHealth.down("no connection to " + printableUri() + " within " + timeout
                    + "; is the server running and rabbitmq.uri right?");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return BrokerHealth.down("interrupted while connecting to " + printableUri());
        }
    }

    /** Runs an administrative call on a short-lived channel of the consuming connection. */
    /**
     * Runs {@code call} (declarations, deletions: idempotent) on a channel of its own. When the
     * connection is lost under it (its node died or was cut off), waits until amqp-client has
     * recovered the connection, on another node when several are in {@code rabbitmq.addresses}, and
     * runs it again, for up to three recovery attempts' time.
     */
    <T> T withChannel(String what, ChannelCall<T> call) {
        long deadline = System.nanoTime() + 3 * (settings.recoveryInterval.toNanos() + settings.connectTimeout.toNanos());
        while (true) {
            Channel channel = null;
            try {
                channel = consumeConnection().createChannel();
                return call.apply(channel);
            } catch (IOException | com.rabbitmq.client.AlreadyClosedException e) {
                if (!AmqpErrors.isConnectionLost(e) || closing || !awaitRecovered(consumeConnection(), deadline)) {
                    throw new SwitchboardException("RabbitMQ at " + printableUri() + " refused to " + what + ": "
                            + AmqpErrors.describe(e) + AmqpErrors.hint(e), e);
                }
                log.info("RabbitMQ connection to {} was lost while trying to {}; trying again on the recovered connection",
                        printableUri(), what);
            } finally {
                closeQuietly(channel);
            }
        }
    }

    /** Waits until {@code connection} is open again (recovered), or {@code deadline}; true if it is open. */
    private static boolean awaitRecovered(Connection connection, long deadline) {
        while (!connection.isOpen()) {
            if (System.nanoTime() - deadline > 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        return true;
    }

    static void closeQuietly(Channel channel) {
        if (channel != null && channel.isOpen()) {
            try {
                channel.close();
            } catch (IOException | TimeoutException | RuntimeException e) {
                log.debug("Closing channel {}: {}", channel.getChannelNumber(), e.toString());
            }
        }
    }

    /** Runs connection-loss and recovery work off amqp-client's threads (inline once the adapter is closed). */
    void onEventThread(Runnable work) {
        try {
            events.execute(work);
        } catch (RejectedExecutionException e) {
            work.run();
        }
    }

    /** Why the broker currently blocks publishing (a resource alarm), or null. */
    String publishingBlocked() {
        return publishingBlocked;
    }

    boolean isClosing() {
        return closing;
    }

    String printableUri() {
        return settings.printableUri();
    }

    SwitchboardClosedException closedError(String destination) {
        return new SwitchboardClosedException("The RabbitMQ client for '" + destination + "' is closed; create a new "
                + "publisher or subscription from an open Switchboard");
    }

    private void ensureOpen(String destination) {
        if (closing) {
            throw closedError(destination);
        }
    }

    /** Closes the control logs and leaderships, both connections and the event thread. Idempotent. */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        synchronized (connecting) {
            if (control != null) {
                control.close();
            }
            closeQuietly(publishConnection);
            closeQuietly(consumeConnection);
        }
        events.shutdown();
        deliveries.shutdown();
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException | RuntimeException e) {
                log.debug("Closing connection {}: {}", connection.getClientProvidedName(), e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "RabbitAdapter[" + printableUri() + "]";
    }

    /**
     * Recovers only the topology declared on channels still in use (consumers, their broadcast
     * queues and bindings). What the provisioner declared on its short-lived channels is durable and
     * outlives a connection loss; re-declaring it through a closed channel would only log errors.
     */
    private static final class LiveChannelsOnly implements TopologyRecoveryFilter {
        @Override
        public boolean filterExchange(RecordedExchange exchange) {
            return exchange.getChannel().isOpen();
        }

        @Override
        public boolean filterQueue(RecordedQueue queue) {
            return queue.getChannel().isOpen();
        }

        @Override
        public boolean filterBinding(RecordedBinding binding) {
            return binding.getChannel().isOpen();
        }

        @Override
        public boolean filterConsumer(RecordedConsumer consumer) {
            return consumer.getChannel().isOpen();
        }
    }

    /** An administrative call on a channel. */
    @FunctionalInterface
    interface ChannelCall<T> {
        T apply(Channel channel) throws IOException;
    }
}
