package io.switchboard.rabbit.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.switchboard.StartPosition;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.rabbit.internal.connection.RabbitConnections;
import io.switchboard.rabbit.internal.consume.RabbitConsumer;
import io.switchboard.rabbit.internal.control.RabbitControlSupport;
import io.switchboard.rabbit.internal.mapping.DelayLevels;
import io.switchboard.rabbit.internal.provision.RabbitProvisioner;
import io.switchboard.rabbit.internal.publish.RabbitPublisher;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.ClusterCheck;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.DaemonThreads;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
    private final RabbitConnections connections;
    private final ScheduledThreadPoolExecutor events;
    private final ConcurrentHashMap<String, Integer> partitions = new ConcurrentHashMap<>();
    /** Destinations whose publishers or subscriptions adopt names (see {@link #isAdopted}). */
    private final Set<String> adopted = ConcurrentHashMap.newKeySet();
    /** Core names a group's broker-side retry destination {@code <destination>_retry_<group>}. */
    private static final String RETRY_INFIX = "_retry_";
    private final RabbitProvisioner provisioner;
    private final Object connecting = new Object();
    private volatile boolean closing;
    /** The fleet control plane's primitives, made on first use; closed with this adapter. */
    private RabbitControlSupport control;

    /** Reads the configuration; connects on first use. */
    public RabbitAdapter(BrokerConfig config) {
        this.settings = new RabbitSettings(config);
        ClusterCheck check = ClusterCheck.of(config);
        settings.clusterWarning().ifPresent(problem -> check.report(log, problem));
        this.capabilities = Capabilities.builder(ID)
                .orderingPerKey(true)
                .broadcast(true)
                .delayedDelivery(true)
                .filtering(true)
                // a group's queue holds what was routed to it since it was declared, consumed once: "earliest" is what
                // it holds (today's behaviour); a broadcast subscriber's exclusive queue is new, so it starts at the end
                .startPositions(Set.of(StartPosition.Kind.EARLIEST), Set.of(StartPosition.Kind.LATEST),
                        "RabbitMQ classic and quorum queues keep no position: a group's durable queue holds what was "
                        + "routed to it since it was declared and gives each message once, and a broadcast subscriber's "
                        + "exclusive queue is new and empty, so there is no offset or time to start from, and a group "
                        + "cannot skip to the latest without purging what its queue holds; subscribe without startFrom, "
                        + "or use a broker with a log (Kafka, RocketMQ) for replay (RabbitMQ stream queues, which keep "
                        + "offsets, are not consumed by this adapter)")
                .maxMessageSize(settings.maxMessageSize)
                .defaultPartitions(RabbitSettings.DEFAULT_PARTITIONS)
                .destinationNames(DestinationNameRule.of("[a-zA-Z0-9._-]+", MAX_NAME,
                        "letters, digits, '.', '_' and '-', at most " + MAX_NAME + " characters (queue names derived "
                                + "from it must fit RabbitMQ's 255 bytes)", Set.of(), Set.of("amq.", DelayLevels.PREFIX)))
                .build();
        this.connections = new RabbitConnections(settings, () -> ensureOpen("(connection)"));
        this.events = new ScheduledThreadPoolExecutor(1, DaemonThreads.numbered("switchboard-rabbit-events-" + config.instanceName()));
        events.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.provisioner = new RabbitProvisioner(this, settings);
    }

    /** Opens a connection with {@code from}, see {@link RabbitConnections#open}. */
    public Connection newConnection(ConnectionFactory from, ExecutorService consumers, String name) throws IOException, TimeoutException {
        return connections.open(from, consumers, name);
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public io.switchboard.spi.ClientThreads clientThreads() {
        // amqp-client's connection threads and the adapter's delivery, event and health threads, all named after the
        // instance ("switchboard-rabbit-<instance>-<n>", "switchboard-rabbit-deliver-<instance>-<n>", ...)
        java.util.regex.Pattern own = java.util.regex.Pattern.compile("switchboard-rabbit-(deliver-|events-)?"
                + java.util.regex.Pattern.quote(settings.config.instanceName()) + "-\\d+|switchboard-rabbit-health-"
                + java.util.regex.Pattern.quote(settings.config.instanceName()));
        return (id, name) -> connections.clientThread(id) || own.matcher(name).matches();
    }

    @Override
    public java.util.List<io.switchboard.spi.PerformanceSetting> performanceSettings() {
        return java.util.List.of(
                io.switchboard.spi.PerformanceSetting.confirmWait("publisher confirms", "on", true,
                        "delivery (at-most-once publishers do not wait)"),
                io.switchboard.spi.PerformanceSetting.other("delivery mode", "persistent", "delivery"),
                io.switchboard.spi.PerformanceSetting.other("confirm window", Integer.toString(settings.maxOutstandingConfirms),
                        "rabbitmq.max-outstanding-confirms"),
                io.switchboard.spi.PerformanceSetting.other("publisher channels", Integer.toString(settings.publisherChannels),
                        "rabbitmq.publisher-channels"),
                io.switchboard.spi.PerformanceSetting.other("x-queue-type", settings.quorumQueues() ? "quorum" : "classic",
                        "rabbitmq.queue-type"),
                io.switchboard.spi.PerformanceSetting.other("exchange type", settings.directExchanges ? "direct" : "topic",
                        RabbitSettings.EXCHANGE_TYPE));
    }

    /** 1: amqp-client sends every message in a basic.publish of its own (confirms are batched, publishes are not). */
    @Override
    public java.util.OptionalDouble recordsPerRequest() {
        return java.util.OptionalDouble.of(1);
    }

    @Override
    public RawPublisher createPublisher(PublisherSpec spec) {
        ensureOpen(spec.destination());
        RabbitSettings own = settings.with(spec.properties());
        // a dead-letter or retry publisher gets its subscription's properties: it keeps Switchboard's own layout
        boolean coreOwn = isCoreOwn(spec.destination()) || RabbitSettings.hasSubscriptionOnly(spec.properties());
        return new RabbitPublisher(this, spec, coreOwn ? own.ownLayout() : adopting(spec.destination(), own));
    }

    @Override
    public RawConsumer createConsumer(ConsumerSpec spec) {
        ensureOpen(spec.destination());
        RabbitSettings own = settings.with(spec.properties());
        return new RabbitConsumer(this, spec, isCoreOwn(spec.destination()) ? own.ownLayout()
                : adopting(spec.destination(), own));
    }

    /**
     * Core's own destinations, reached with a subscription's properties: its dead-letter destination and the
     * destinations of its broker-side retries. They always keep Switchboard's own layout.
     */
    private boolean isCoreOwn(String destination) {
        return isDeadLetterDestination(destination) || destination.contains(RETRY_INFIX);
    }

    /** Notes a destination whose publisher or subscription adopts names, so that provisioning leaves it alone. */
    private RabbitSettings adopting(String destination, RabbitSettings own) {
        if (own.adopts(destination)) {
            adopted.add(destination);
        }
        return own;
    }

    /**
     * Whether a publisher or subscription of this adapter adopts the names of {@code destination} (see
     * {@link RabbitSettings#adopts}): then provisioning does not declare its exchange, which its publishers and
     * subscriptions declare, check or leave alone as their {@value RabbitSettings#DECLARE} says.
     */
    public boolean isAdopted(String destination) {
        return adopted.contains(destination);
    }

    /** Notes a subscription that will start soon, so that provisioning in the same round knows it adopts names. */
    public void consumerExpected(ConsumerSpec spec) {
        if (!isCoreOwn(spec.destination())) {
            adopting(spec.destination(), settings.with(spec.properties()));
        }
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
                control = new RabbitControlSupport(this, settings, connections.factory());
            }
            return Optional.of(control);
        }
    }

    public RabbitProvisioner topology() {
        return provisioner;
    }

    /**
     * Partitions of a destination: as provisioned through this adapter (core auto-provisions with
     * {@code switchboard.partitions}, default 1), else the instance's {@code switchboard.partitions}
     * (default 1), remembered so that every publisher and consumer of this adapter agrees.
     */
    public int partitions(String destination) {
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
    public int partitions(String destination, Map<String, String> own, RabbitSettings effective) {
        return own.containsKey(RabbitSettings.PARTITIONS) ? effective.partitions() : partitions(destination);
    }

    /** Records the partition count of a destination provisioned here; a known count is kept. */
    public int rememberPartitions(String destination, int count) {
        return partitions.putIfAbsent(destination, count) == null ? count : partitions.get(destination);
    }

    public void forgetPartitions(String destination) {
        partitions.remove(destination);
    }

    /** The dead-letter destination of a destination, or null when it is one itself. */
    public String deadLetterExchangeOf(String destination) {
        return isDeadLetterDestination(destination) ? null : capabilities.deadLetterDestination(destination);
    }

    public boolean isDeadLetterDestination(String destination) {
        return destination.endsWith(".dlq");
    }

    public Connection publishConnection() {
        return connections.publish();
    }

    public Connection consumeConnection() {
        return connections.consume();
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
        return connections.health(timeout);
    }

    /** Runs an administrative call on a short-lived channel of the consuming connection. */
    /**
     * Runs {@code call} (declarations, deletions: idempotent) on a channel of its own. When the
     * connection is lost under it (its node died or was cut off), waits until amqp-client has
     * recovered the connection, on another node when several are in {@code rabbitmq.addresses}, and
     * runs it again, for up to three recovery attempts' time.
     */
    public <T> T withChannel(String what, ChannelCall<T> call) {
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

    public static void closeQuietly(Channel channel) {
        if (channel != null && channel.isOpen()) {
            try {
                channel.close();
            } catch (IOException | TimeoutException | RuntimeException e) {
                log.debug("Closing channel {}: {}", channel.getChannelNumber(), e.toString());
            }
        }
    }

    /** Runs connection-loss and recovery work off amqp-client's threads (inline once the adapter is closed). */
    public void onEventThread(Runnable work) {
        try {
            events.execute(work);
        } catch (RejectedExecutionException e) {
            work.run();
        }
    }

    /** Runs {@code work} on the event thread after {@code delayMillis}; not at all once the adapter is closed. */
    public void onEventThreadLater(Runnable work, long delayMillis) {
        try {
            events.schedule(work, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Not scheduled, the adapter is closed: {}", work);
        }
    }

    /** Why the broker currently blocks publishing (a resource alarm), or null. */
    public String publishingBlocked() {
        return connections.publishingBlocked();
    }

    /** See {@link RabbitConnections#awaitPublishing(long)}. */
    public String awaitPublishing(long deadlineNanos) throws InterruptedException {
        return connections.awaitPublishing(deadlineNanos);
    }

    /** {@return where the adapter reports its client events} */
    public ClientEvents clientEvents() {
        return settings.config.events();
    }

    public boolean isClosing() {
        return closing;
    }

    public String printableUri() {
        return settings.printableUri();
    }

    public SwitchboardClosedException closedError(String destination) {
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
        }
        connections.close();
        events.shutdown();
    }

    @Override
    public String toString() {
        return "RabbitAdapter[" + printableUri() + "]";
    }

    /** An administrative call on a channel. */
    @FunctionalInterface
    public interface ChannelCall<T> {
        T apply(Channel channel) throws IOException;
    }
}
