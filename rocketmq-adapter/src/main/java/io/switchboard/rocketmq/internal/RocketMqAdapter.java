package io.switchboard.rocketmq.internal;

import io.switchboard.rocketmq.internal.client.BrokerWatch;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.rocketmq.internal.client.SharedConsumeThreads;
import io.switchboard.rocketmq.internal.client.TlsSupport;
import io.switchboard.rocketmq.internal.client.TransactionHandlers;
import io.switchboard.rocketmq.internal.consume.RocketMqConsumer;
import io.switchboard.rocketmq.internal.control.RocketMqControlSupport;
import io.switchboard.rocketmq.internal.provision.RocketMqProvisioner;
import io.switchboard.rocketmq.internal.publish.RocketMqPublisher;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RocketMQ adapter for one broker instance: shared producers (started on first publish or
 * provisioning), one push consumer per subscription, and a provisioner, all in one RocketMQ
 * client instance (connections, heartbeats, rebalancing) of this adapter; the consumers run on
 * shared consume and timer threads ({@link SharedConsumeThreads}). Thread-safe.
 */
public final class RocketMqAdapter implements BrokerAdapter {

    /** The adapter id. */
    public static final String ID = "rocketmq";

    private static final Logger log = LoggerFactory.getLogger(RocketMqAdapter.class);

    private final BrokerConfig config;
    private final RocketMqSettings settings;
    private final Capabilities capabilities;
    private final Producers producers;
    private final Semaphore sendWindow;
    private final RocketMqControlSupport control;
    private final RocketMqProvisioner provisioner;
    private final Set<RawConsumer> consumers = ConcurrentHashMap.newKeySet();
    private final Set<String> groupsOnSharedClient = ConcurrentHashMap.newKeySet();
    private final String clientName;
    /**
     * The client instance the adapter's consumers share (one member of each group), apart from the
     * producers' {@link #clientName}: a client instance runs the send callbacks of its producers and
     * the pull results of its consumers on the same few callback threads and one connection, where
     * a keyed publisher sends each queue's next batch from its send callback, so pulls waited behind
     * sends.
     */
    private final String consumerClientName;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The consume and timer threads of the consumers that share them ({@code rocketmq.share-consume-threads}). */
    private final SharedConsumeThreads consumeThreads = new SharedConsumeThreads();
    /** Reports lost broker connections while something listens to the client events, else null. */
    private final BrokerWatch brokerWatch;

    /** Reads and checks the configuration; connects nothing yet. */
    public RocketMqAdapter(BrokerConfig config) {
        this.config = config;
        this.settings = RocketMqSettings.from(config);
        this.clientName = Producers.instanceName(settings.instanceName());
        this.consumerClientName = Producers.instanceName(settings.instanceName());
        this.producers = new Producers(settings, clientName, TransactionHandlers.slot(settings.instanceName()));
        this.sendWindow = new Semaphore(settings.maxPendingSends());
        this.provisioner = new RocketMqProvisioner(producers, settings, this::groupOf);
        this.control = new RocketMqControlSupport(producers, settings, clientName, provisioner);
        this.capabilities = Capabilities.builder(ID)
                .nativeExactlyOnce(false)
                .orderingPerKey(true)
                .delayedDelivery(true)
                .broadcast(true)
                .filtering(true)
                .replay(true)
                .startPositions(java.util.EnumSet.allOf(io.switchboard.StartPosition.Kind.class),
                        java.util.EnumSet.allOf(io.switchboard.StartPosition.Kind.class), "")
                .maxMessageSize(settings.maxMessageSize())
                .destinationNames(RocketMqNames.destinationRule())
                .deadLetterNaming(RocketMqNames::deadLetterOf)
                .build();
        this.brokerWatch = BrokerWatch.start(settings.instanceName(), settings.events(), this::watchedClient,
                settings.sendTimeout());
        if (settings.tls() && !TlsSupport.verifiesBroker()) {
            // rocketmq-client's trust settings are JVM-wide system properties, read once when its classes load
            log.warn("Broker instance '{}' (rocketmq): {}=true, but the RocketMQ client in this JVM accepts any broker "
                    + "certificate ({}={}, {}={}): connections are encrypted but the broker is not authenticated. To "
                    + "verify it, start the JVM with -D{}=false -D{}=true -D{}=<PEM file of the CA or of the broker's "
                    + "certificate> (and, with Netty 4.2, -D{}=NONE)", settings.instanceName(), RocketMqSettings.TLS,
                    TlsSystemConfig.TLS_TEST_MODE_ENABLE, TlsSystemConfig.tlsTestModeEnable,
                    TlsSystemConfig.TLS_CLIENT_AUTHSERVER, TlsSystemConfig.tlsClientAuthServer,
                    TlsSystemConfig.TLS_TEST_MODE_ENABLE, TlsSystemConfig.TLS_CLIENT_AUTHSERVER,
                    TlsSystemConfig.TLS_CLIENT_TRUSTCERTPATH, TlsSupport.NETTY_ENDPOINT_CHECK);
        }
    }

    /** The client instance the broker watch asks through: the producers' once started, else a started consumer's. */
    private MQClientInstance watchedClient() {
        MQClientInstance client = producers.startedClient();
        if (client != null) {
            return client;
        }
        for (RawConsumer consumer : consumers) {
            if (consumer instanceof RocketMqConsumer rocketMq && rocketMq.clientInstance() != null) {
                return rocketMq.clientInstance();
            }
        }
        return null;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /**
     * rocketmq-client's threads (remoting, pull, rebalance, consume, async send, housekeeping) and the adapter's. The
     * client names none of them after its instance, so with two RocketMQ instances in one process the first one's
     * figure carries both; an in-process broker's own remoting client threads share the names too (they only send
     * heartbeats).
     */
    private static final java.util.regex.Pattern CLIENT_THREADS = java.util.regex.Pattern.compile(
            "NettyClient(Selector|WorkerThread|PublicExecutor|Scan_thread)_\\d+|ConsumeMessage(Scheduled)?Thread_.*"
                    + "|AsyncSenderExecutor_\\d+|PullMessageService(ScheduledThread)?|RebalanceService|ClientHouseKeepingService"
                    + "|MQClientFactoryScheduledThread|RequestHouseKeepingService|CleanExpireMsgScheduledThread_\\d+"
                    + "|GuardFor(A)?syncSendService|switchboard-(rocketmq|leadership|control-log)-.*");

    @Override
    public io.switchboard.spi.ClientThreads clientThreads() {
        return io.switchboard.spi.ClientThreads.named(name -> CLIENT_THREADS.matcher(name).matches());
    }

    @Override
    public java.util.List<io.switchboard.spi.PerformanceSetting> performanceSettings() {
        return java.util.List.of(
                io.switchboard.spi.PerformanceSetting.confirmWait("send", "waits for the broker's result", true, "delivery"),
                io.switchboard.spi.PerformanceSetting.other("sendMsgTimeout", settings.sendTimeout().toMillis() + " ms",
                        "rocketmq.send-timeout"),
                io.switchboard.spi.PerformanceSetting.other("send window", Integer.toString(settings.maxPendingSends()),
                        io.switchboard.rocketmq.internal.RocketMqSettings.MAX_PENDING_SENDS),
                io.switchboard.spi.PerformanceSetting.other("consumeThreads", Integer.toString(settings.consumeThreads()),
                        "rocketmq.consume-threads"),
                io.switchboard.spi.PerformanceSetting.other("consume mode", settings.consumeConcurrently() ? "concurrently"
                        : "orderly", io.switchboard.rocketmq.internal.RocketMqSettings.CONSUME_MODE));
    }

    @Override
    public RawPublisher createPublisher(PublisherSpec spec) {
        return new RocketMqPublisher(producers, settings, spec, sendWindow);
    }

    @Override
    public RawConsumer createConsumer(ConsumerSpec spec) {
        // Subscription properties (consume mode and threads, for example) override the instance's.
        RocketMqSettings own = settingsOf(spec);
        String group = groupOf(spec);
        // RocketMQ runs one consumer per group in a client instance: the first member of a group runs
        // in the consumers' shared one, a second member of the same group in this adapter in one of its own.
        boolean shared = groupsOnSharedClient.add(group);
        String client = shared ? consumerClientName : Producers.instanceName(settings.instanceName());
        // a group core announced (auto-provisioning) is made with its retry topic, in a batch, before its consumer starts
        RocketMqConsumer consumer = new RocketMqConsumer(spec, group, client, own, producers, consumeThreads,
                () -> provisioner.ensureGroup(group), closed -> {
            consumers.remove(closed);
            if (shared) {
                groupsOnSharedClient.remove(group);
            }
        });
        consumers.add(consumer);
        return consumer;
    }

    /** The instance's settings with the subscription's properties (consume mode and threads, for example) over them. */
    private RocketMqSettings settingsOf(ConsumerSpec spec) {
        return spec.properties().isEmpty() ? settings : RocketMqSettings.from(config.with(spec.properties()));
    }

    /** The RocketMQ consumer group of a subscription. */
    private String groupOf(ConsumerSpec spec) {
        return RocketMqNames.consumerGroup(spec.group(), spec.destination(), settingsOf(spec).groupPerDestination());
    }

    /** The adapter's producers (tests look at their client instance). */
    public Producers producers() {
        return producers;
    }

    @Override
    public Provisioner provisioner() {
        return provisioner;
    }

    /** The control log and leadership of {@link RocketMqControlSupport}, closed with this adapter. */
    @Override
    public Optional<ControlSupport> control() {
        return Optional.of(control);
    }

    /** UP when the name server answers within the timeout and knows a master broker of the cluster. */
    @Override
    public BrokerHealth health(Duration timeout) {
        if (closed.get()) {
            return BrokerHealth.down("the RocketMQ client of this Switchboard is closed");
        }
        String nameServer = settings.nameServer();
        try {
            ClusterInfo clusters = producers.api().getBrokerClusterInfo(timeout.toMillis());
            long masters = clusters.getBrokerAddrTable().values().stream()
                    .filter(broker -> broker.getBrokerAddrs().get(MixAll.MASTER_ID) != null)
                    .filter(broker -> settings.cluster() == null || settings.cluster().equals(broker.getCluster()))
                    .map(BrokerData::getBrokerName)
                    .count();
            return masters == 0
                    ? BrokerHealth.down("name server " + nameServer + " knows no master broker"
                            + (settings.cluster() == null ? "" : " in cluster '" + settings.cluster() + "'"))
                    : BrokerHealth.up(masters + " master broker(s) known to name server " + nameServer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return BrokerHealth.down("interrupted while asking name server " + nameServer);
        } catch (Exception e) {
            return BrokerHealth.down("name server " + nameServer + " did not answer within " + timeout + ": " + e.getMessage()
                    + "; check " + RocketMqSettings.NAME_SERVER + " and that the name server runs");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (RawConsumer consumer : Set.copyOf(consumers)) {
            try {
                consumer.close();
            } catch (RuntimeException e) {
                log.warn("Closing {} failed", consumer, e);
            }
        }
        if (brokerWatch != null) {
            brokerWatch.close();
        }
        consumeThreads.close();
        control.close();
        producers.close();
    }

    @Override
    public String toString() {
        return "RocketMqAdapter[" + settings.instanceName() + " at " + settings.nameServer()
                + (settings.credentials().enabled() ? ", access key " + settings.credentials().accessKey() : "")
                + (settings.tls() ? ", TLS" : "") + "]";
    }
}
