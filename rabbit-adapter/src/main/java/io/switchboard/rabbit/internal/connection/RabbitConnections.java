package io.switchboard.rabbit.internal.connection;

import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.RecordedBinding;
import com.rabbitmq.client.impl.recovery.RecordedConsumer;
import com.rabbitmq.client.impl.recovery.RecordedExchange;
import com.rabbitmq.client.impl.recovery.RecordedQueue;
import com.rabbitmq.client.impl.recovery.TopologyRecoveryFilter;
import io.switchboard.ConfigurationException;
import io.switchboard.SwitchboardException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.DaemonThreads;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two auto-recovering connections of a {@link RabbitAdapter}, opened on first use: one for
 * publishing, one for consuming and administration, so that the broker's flow control on
 * publishers never stalls consumers. Explains a connection that cannot be opened (login, vhost,
 * TLS, unreachable server) and tells whether they are healthy.
 */
public final class RabbitConnections {

    private static final Logger log = LoggerFactory.getLogger(RabbitAdapter.class);

    private static final long DELIVERY_IDLE_SECONDS = 5;

    private final RabbitSettings settings;
    private final ConnectionFactory factory;
    /** Throws when the adapter is closed: nothing is opened then. */
    private final Runnable whileOpen;
    /**
     * Runs the consume connection's deliveries: one thread per busy channel (amqp-client hands a
     * channel's deliveries to one thread at a time), so a handler that core runs on a delivery
     * thread holds back only its own channel, never another subscription's. A thread idle for
     * {@link #DELIVERY_IDLE_SECONDS} ends (a cached pool's 60 s kept a closed subscription's
     * thread alive for a minute); a channel that receives again takes another.
     */
    private final ExecutorService deliveries;
    private volatile Connection publishConnection;
    private volatile Connection consumeConnection;
    /** Why the broker blocks publishing (a memory or disk alarm), or null. */
    private volatile String publishingBlocked;
    /** What publishers waiting for a block to clear ({@link #awaitPublishing}) wait on. */
    private final Object unblocked = new Object();
    private volatile boolean closing;
    private final ClientEvents events;
    /** The open connection-lost span of each connection (publishing, consuming), ended by its recovery. */
    private final AtomicReference<ClientEvents.Span> publishLost = new AtomicReference<>();
    private final AtomicReference<ClientEvents.Span> consumeLost = new AtomicReference<>();
    /** The open back-pressure span while the broker blocks the publishing connection. */
    private final AtomicReference<ClientEvents.Span> blockedSpan = new AtomicReference<>();

    public RabbitConnections(RabbitSettings settings, Runnable whileOpen) {
        this.settings = settings;
        this.whileOpen = whileOpen;
        this.events = settings.config.events();
        String instance = settings.config.instanceName();
        this.factory = connectionFactory(settings, instance, threads);
        this.deliveries = new ThreadPoolExecutor(0, Integer.MAX_VALUE, DELIVERY_IDLE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), DaemonThreads.numbered("switchboard-rabbit-deliver-" + instance));
    }

    /** Ids of the threads amqp-client made for this instance's connections (whatever it named them). */
    private final java.util.Set<Long> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** {@return whether a thread is one amqp-client made for this instance's connections} */
    public boolean clientThread(long threadId) {
        return threads.contains(threadId);
    }

    public ConnectionFactory factory() {
        return factory;
    }

    public Connection publish() {
        Connection connection = publishConnection;
        return connection != null ? connection : connect(true);
    }

    public Connection consume() {
        Connection connection = consumeConnection;
        return connection != null ? connection : connect(false);
    }

    /** Why the broker currently blocks publishing (a resource alarm), or null. */
    public String publishingBlocked() {
        return publishingBlocked;
    }

    /**
     * Waits, while the broker blocks publishing, until it unblocks, the publishing connection is
     * recovered (a new connection starts unblocked; the broker blocks it again if its alarm
     * persists) or the deadline passes. Alarms are cluster-wide and usually pass within seconds (a
     * node restarting, a queue paging out): waiting, as a native client does, fails no publish.
     *
     * @param deadlineNanos a {@link System#nanoTime()} value
     * @return why publishing is still blocked at the deadline, or null when it is not blocked
     */
    public String awaitPublishing(long deadlineNanos) throws InterruptedException {
        String blocked = publishingBlocked;
        if (blocked == null) {
            return null;
        }
        synchronized (unblocked) {
            while ((blocked = publishingBlocked) != null && !closing) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return blocked;
                }
                TimeUnit.NANOSECONDS.timedWait(unblocked, left);
            }
        }
        return null;
    }

    /** Clears the block (on the connection's thread: only a notify, never a wait). */
    private void unblock(String why) {
        if (publishingBlocked == null) {
            return;
        }
        publishingBlocked = null;
        endSpan(blockedSpan);
        synchronized (unblocked) {
            unblocked.notifyAll();
        }
        log.info("RabbitMQ at {} accepts publishers again ({})", settings.printableUri(), why);
    }

    /**
     * Opens a connection with {@code from}: to the URI's host and port, or, with
     * {@code rabbitmq.addresses}, to the first of those nodes that accepts it, in an order amqp-client
     * shuffles on every attempt (recoveries included, so a client of a dead node recovers on another).
     *
     * @param consumers where the connection runs its consumers, or null for amqp-client's own pool
     */
    public Connection open(ConnectionFactory from, ExecutorService consumers, String name) throws IOException, TimeoutException {
        if (settings.addresses.isEmpty()) {
            return consumers == null ? from.newConnection(name) : from.newConnection(consumers, name);
        }
        return consumers == null ? from.newConnection(settings.addresses, name)
                : from.newConnection(consumers, settings.addresses, name);
    }

    private static ConnectionFactory connectionFactory(RabbitSettings settings, String instance,
            java.util.Set<Long> threads) {
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
        java.util.concurrent.ThreadFactory named = DaemonThreads.numbered("switchboard-rabbit-" + instance);
        factory.setThreadFactory(work -> { // amqp-client renames its connection threads ("AMQP Connection host:port")
            Thread t = named.newThread(work);
            threads.add(t.getId());
            return t;
        });
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

    private Connection connect(boolean publishing) {
        synchronized (this) {
            whileOpen.run();
            Connection existing = publishing ? publishConnection : consumeConnection;
            if (existing != null) {
                return existing;
            }
            String name = settings.connectionName + (publishing ? "-publish" : "-consume");
            Connection connection;
            try {
                // the publish connection too: without an executor amqp-client gives each connection a
                // fixed pool whose threads, started by channel closes, stay until the connection closes
                connection = open(factory, deliveries, name);
            } catch (AuthenticationFailureException e) {
                throw new SwitchboardException("RabbitMQ at " + settings.printableUri() + " refused the login of user '"
                        + factory.getUsername() + "': " + AmqpErrors.sentence(AmqpErrors.describe(e))
                        + " Fix user and password in property rabbitmq.uri (or create the user: rabbitmqctl add_user)", e);
            } catch (IOException | TimeoutException e) {
                if (AmqpErrors.isConnectionNotAllowed(e)) {
                    throw new SwitchboardException("RabbitMQ at " + settings.printableUri() + " refused user '" + factory.getUsername()
                            + "' access to virtual host '" + factory.getVirtualHost() + "': "
                            + AmqpErrors.sentence(AmqpErrors.describe(e)) + " Create the vhost and grant the user access "
                            + "(rabbitmqctl add_vhost " + factory.getVirtualHost() + "; rabbitmqctl set_permissions -p "
                            + factory.getVirtualHost() + " " + factory.getUsername() + " '.*' '.*' '.*'), or fix the "
                            + "vhost in property rabbitmq.uri", e);
                }
                if (isTlsFailure(e)) {
                    throw new SwitchboardException("The TLS handshake with RabbitMQ at " + settings.printableUri() + " failed: "
                            + AmqpErrors.describe(e) + ". Make " + RabbitTls.TRUSTSTORE + " (with " + RabbitTls.TRUSTSTORE_PASSWORD
                            + " and " + RabbitTls.TRUSTSTORE_TYPE + ") hold the certificate that signed the server's, and "
                            + "check that the server's certificate names the host in rabbitmq.uri", e);
                }
                String what = e instanceof TimeoutException || e instanceof java.net.SocketTimeoutException
                        ? "no AMQP answer within " + settings.connectTimeout + " (property rabbitmq.connect-timeout)"
                        : AmqpErrors.describe(e);
                throw new SwitchboardException("Cannot connect to RabbitMQ at " + settings.printableUri()
                        + (settings.addresses.isEmpty() ? " (property rabbitmq.uri)" : " (none of the addresses answered)") + ": "
                        + what + ". Is the server running? Start it (rabbitmq-server -detached on this "
                        + "machine's Debian package) or point rabbitmq.uri at a running server"
                        + (RabbitTls.wanted(settings.uri) ? "" : "; if that port is a TLS listener, use an amqps:// URI"), e);
            }
            log.info("Connected to RabbitMQ at {} as '{}' (node at {}:{})", settings.printableUri(), name,
                    connection.getAddress().getHostAddress(), connection.getPort());
            reportLossAndRecovery(connection, name, publishing ? publishLost : consumeLost);
            if (publishing) {
                connection.addBlockedListener(reason -> {
                    publishingBlocked = reason;
                    beginSpan(blockedSpan, EventKinds.BACK_PRESSURE, name, "the broker blocks publishers: " + reason);
                    log.warn("RabbitMQ at {} blocks publishers: {}", settings.printableUri(), reason);
                }, () -> unblock("the broker unblocked the connection"));
                // a recovered connection is a new one, not blocked until the broker says so: an unblock
                // that the lost connection never received must not keep publishers failing
                ((Recoverable) connection).addRecoveryListener(new RecoveryListener() {
                    @Override
                    public void handleRecovery(Recoverable recovered) {
                        unblock("the connection was recovered");
                    }

                    @Override
                    public void handleRecoveryStarted(Recoverable recovering) {
                        // still blocked until the new connection is up
                    }
                });
                publishConnection = connection;
            } else {
                consumeConnection = connection;
            }
            return connection;
        }
    }

    /**
     * Reports the connection's loss (a shutdown the application did not ask for) as a connection-lost span that its
     * recovery ends. Both listeners run on amqp-client's threads: they only record.
     */
    private void reportLossAndRecovery(Connection connection, String name, AtomicReference<ClientEvents.Span> lost) {
        if (events == ClientEvents.NONE) {
            return;
        }
        connection.addShutdownListener(cause -> {
            if (!closing && !cause.isInitiatedByApplication()) {
                beginSpan(lost, EventKinds.CONNECTION_LOST, name, lossReason(cause));
            }
        });
        ((Recoverable) connection).addRecoveryListener(new RecoveryListener() {
            @Override
            public void handleRecovery(Recoverable recovered) {
                endSpan(lost);
            }

            @Override
            public void handleRecoveryStarted(Recoverable recovering) {
                // the span is open since the loss
            }
        });
    }

    private static String lossReason(ShutdownSignalException cause) {
        try {
            return AmqpErrors.describe(cause) + "; amqp-client recovers it";
        } catch (RuntimeException e) {
            return "lost; amqp-client recovers it";
        }
    }

    /** Opens a span unless one is open; never throws into the client's thread. */
    private void beginSpan(AtomicReference<ClientEvents.Span> open, String kind, String subject, String detail) {
        if (events == ClientEvents.NONE || open.get() != null) {
            return;
        }
        try {
            ClientEvents.Span span = events.begin(kind, subject, detail);
            if (!open.compareAndSet(null, span)) {
                span.end();
            }
        } catch (RuntimeException e) {
            log.debug("Reporting a {} event of '{}' failed", kind, subject, e);
        }
    }

    private static void endSpan(AtomicReference<ClientEvents.Span> open) {
        ClientEvents.Span span = open.getAndSet(null);
        if (span != null) {
            try {
                span.end();
            } catch (RuntimeException e) {
                log.debug("Ending a client event failed", e);
            }
        }
    }

    /** See {@link RabbitAdapter#health(Duration)}: the connections' part of it. */
    public BrokerHealth health(Duration timeout) {
        if (publishConnection == null && consumeConnection == null) {
            BrokerHealth failed = connectWithin(timeout);
            if (failed != null) {
                return failed;
            }
        }
        for (Connection connection : new Connection[] {publishConnection, consumeConnection}) {
            if (connection != null && !connection.isOpen()) {
                Object cause = connection.getCloseReason() == null ? "closed" : AmqpErrors.describe(connection.getCloseReason());
                return BrokerHealth.down("connection '" + connection.getClientProvidedName() + "' to " + settings.printableUri()
                        + " is lost (" + cause + "); the client reconnects every " + settings.recoveryInterval);
            }
        }
        String blocked = publishingBlocked;
        if (blocked != null) {
            return BrokerHealth.down("RabbitMQ at " + settings.printableUri() + " blocks publishers: " + blocked);
        }
        return BrokerHealth.up("connected to " + settings.printableUri());
    }

    private BrokerHealth connectWithin(Duration timeout) {
        CompletableFuture<Connection> attempt = new CompletableFuture<>();
        Thread connector = DaemonThreads.newThread("switchboard-rabbit-health-" + settings.config.instanceName(), () -> {
            try {
                attempt.complete(consume());
            } catch (RuntimeException e) {
                attempt.completeExceptionally(e);
            }
        });
        connector.start();
        try {
            attempt.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return BrokerHealth.down(e.getCause().getMessage());
        } catch (TimeoutException e) {
            return BrokerHealth.down("no connection to " + settings.printableUri() + " within " + timeout
                    + "; is the server running and rabbitmq.uri right?");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return BrokerHealth.down("interrupted while connecting to " + settings.printableUri());
        }
    }

    /** Closes both connections and stops the delivery threads. */
    public synchronized void close() {
        closing = true;
        synchronized (unblocked) {
            unblocked.notifyAll();
        }
        closeQuietly(publishConnection);
        closeQuietly(consumeConnection);
        endSpan(publishLost);
        endSpan(consumeLost);
        endSpan(blockedSpan);
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

}
