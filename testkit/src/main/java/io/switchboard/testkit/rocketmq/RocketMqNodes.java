package io.switchboard.testkit.rocketmq;

import io.switchboard.testkit.fault.TcpProxy;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import org.apache.rocketmq.auth.config.AuthConfig;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started name server and broker pair, and how it is configured for tests; with a
 * {@link TcpProxy} in front of the broker when it was started behind one ({@code proxy} is null
 * otherwise).
 *
 * <p>Each setting below departs from RocketMQ's defaults for a reason that matters in a test JVM:
 * small files (the defaults map 1 GB commit-log files), loopback only, no fast failure of queued
 * sends, and a transaction check-back within seconds.
 */
record RocketMqNodes(NamesrvController nameServer, BrokerController broker, String nameServerAddress, TcpProxy proxy) {

    private static final Logger log = LoggerFactory.getLogger(RocketMqNodes.class);
    private static final String LOOPBACK = "127.0.0.1";
    private static final int MAX_START_ATTEMPTS = 3;
    /**
     * How often the timer wheel is written to its file (RocketMQ's default: every second). Once an
     * hour: each flush costs about 2 s of CPU (JFR, 2026-11-23: 15 % of all samples of a 15 s bench
     * run on 2 cores when it fell inside the measurement), and nothing here needs the wheel on disk.
     */
    private static final int TIMER_FLUSH_INTERVAL_MS = 3_600_000;

    /**
     * Starts a name server, then a broker registered to it. Ports are probed free before use; if
     * another process takes one in between, the start is retried on new ports.
     *
     * @param behindProxy start a {@link TcpProxy} in front of the broker's port and have the broker
     *     register the proxy's address in the name server, so that clients reach it only through
     *     the proxy
     */
    static RocketMqNodes start(Path root, String cluster, String brokerName, boolean behindProxy) {
        return start(root, cluster, brokerName, behindProxy, BrokerSecurity.NONE);
    }

    /**
     * As {@link #start(Path, String, String, boolean)}, with the broker asking for ACL credentials or TLS (the name
     * server then takes TLS only as well) as {@code security} says.
     */
    static RocketMqNodes start(Path root, String cluster, String brokerName, boolean behindProxy,
            BrokerSecurity security) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= MAX_START_ATTEMPTS; attempt++) {
            FreePorts.Reserved ports = FreePorts.forRocketMq();
            NamesrvController nameServer = null;
            TcpProxy proxy = null;
            try {
                nameServer = startNameServer(root.resolve("namesrv-" + attempt), LOOPBACK, ports.nameServer(), security);
                String nameServerAddress = LOOPBACK + ":" + ports.nameServer();
                proxy = behindProxy ? TcpProxy.start(LOOPBACK, ports.broker()) : null;
                BrokerController broker = startBroker(root.resolve("broker-" + attempt), cluster, brokerName,
                        nameServerAddress, ports.broker(), ports.ha(), proxy == null ? 0 : proxy.port(), security);
                return new RocketMqNodes(nameServer, broker, nameServerAddress, proxy);
            } catch (Exception e) {
                if (proxy != null) {
                    proxy.close();
                }
                if (nameServer != null) {
                    nameServer.shutdown();
                }
                failure = new IllegalStateException("Could not start RocketMQ on ports " + ports
                        + " (attempt " + attempt + " of " + MAX_START_ATTEMPTS + "): " + e.getMessage(), e);
                log.warn(failure.getMessage());
            }
        }
        throw failure;
    }

    void shutdown() {
        shutdown(broker, nameServer);
        if (proxy != null) {
            proxy.close();
        }
    }

    /**
     * Stops the broker, then the name server: the broker first, while the name server still answers
     * its unregistration and metadata refresh. Stopped side by side (as before, to save seconds), the
     * name server's unregistration thread was interrupted mid-request and the broker's refresh found
     * no name server, each an ERROR with a stack trace at the end of every run.
     */
    static void shutdown(BrokerController broker, NamesrvController nameServer) {
        try {
            broker.shutdown();
            stopLeakedRocksDbScheduler(broker);
        } finally {
            nameServer.shutdown();
        }
    }

    /**
     * RocketMQ 5.5.0's {@code MessageRocksDBStorage} never stops its non-daemon scheduler, which would
     * keep a JVM alive after the broker is shut down; stop it here if the field is still there.
     */
    static void stopLeakedRocksDbScheduler(BrokerController broker) {
        try {
            Object storage = broker.getMessageStore().getMessageRocksDBStorage();
            if (storage == null) {
                return;
            }
            Field scheduler = storage.getClass().getDeclaredField("scheduler");
            scheduler.setAccessible(true);
            ((ExecutorService) scheduler.get(storage)).shutdownNow();
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.debug("Could not stop MessageRocksDBStorage's scheduler: {}", e.toString());
        }
    }

    /** Sends one message synchronously: proves the write path and maps the first commit-log file. */
    static void sendProbe(String nameServerAddress, String topic) {
        sendProbe(nameServerAddress, topic, BrokerSecurity.NONE);
    }

    /** As {@link #sendProbe(String, String)}, signed and over TLS as {@code security} says. */
    static void sendProbe(String nameServerAddress, String topic, BrokerSecurity security) {
        DefaultMQProducer producer = new DefaultMQProducer("embedded_rocketmq_probe", security.rpcHook());
        producer.setNamesrvAddr(nameServerAddress);
        security.configure(producer);
        producer.setInstanceName("embedded-rocketmq-probe-" + System.nanoTime());
        try {
            producer.start();
            SendResult result = producer.send(new Message(topic, "probe".getBytes(StandardCharsets.UTF_8)));
            if (result.getSendStatus() != SendStatus.SEND_OK) {
                throw new IllegalStateException("Probe message to " + topic + " was stored as "
                        + result.getSendStatus() + ", expected SEND_OK");
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("RocketMQ broker did not take a probe message on topic '"
                    + topic + "': " + e.getMessage(), e);
        } finally {
            producer.shutdown();
        }
    }

    static NamesrvController startNameServer(Path dir, int port) throws Exception {
        return startNameServer(dir, LOOPBACK, port);
    }

    static NamesrvController startNameServer(Path dir, String bindAddress, int port) throws Exception {
        return startNameServer(dir, bindAddress, port, BrokerSecurity.NONE);
    }

    /** A name server that takes TLS only when {@code security} has TLS (it checks no ACL credentials in RocketMQ 5.5.0). */
    static NamesrvController startNameServer(Path dir, String bindAddress, int port, BrokerSecurity security)
            throws Exception {
        NamesrvConfig config = new NamesrvConfig();
        config.setRocketmqHome(dir.toString());
        config.setKvConfigPath(dir.resolve("kvConfig.json").toString());
        config.setConfigStorePath(dir.resolve("namesrv.properties").toString());
        NettyServerConfig server = new NettyServerConfig();
        server.setBindAddress(bindAddress);
        server.setListenPort(port);
        NamesrvController controller = new NamesrvController(config, server, security.brokerClientConfig());
        try (AutoCloseable tls = serverMode(security)) {
            if (!controller.initialize()) {
                controller.shutdown();
                throw new IllegalStateException("RocketMQ name server did not initialize in " + dir);
            }
        }
        controller.start();
        return controller;
    }

    /**
     * Shuts {@code broker} down without touching its store, then starts a new broker with the same
     * name, cluster, name server, ports, advertised address and store directory, as an operator's
     * restart would.
     *
     * @return the new, started broker
     */
    static BrokerController restartBroker(BrokerController broker) throws Exception {
        return restartBroker(broker, BrokerSecurity.NONE);
    }

    /** As {@link #restartBroker(BrokerController)}, for a broker started with {@code security}. */
    static BrokerController restartBroker(BrokerController broker, BrokerSecurity security) throws Exception {
        BrokerConfig old = broker.getBrokerConfig();
        Path dir = Path.of(old.getRocketmqHome());
        int port = broker.getNettyServerConfig().getListenPort();
        int haPort = broker.getMessageStoreConfig().getHaListenPort();
        int advertisedPort = broker instanceof AdvertisingBroker advertising ? advertising.advertisedPort : 0;
        broker.shutdown();
        stopLeakedRocksDbScheduler(broker);
        return startBroker(dir, old.getBrokerClusterName(), old.getBrokerName(), old.getNamesrvAddr(), port, haPort,
                advertisedPort, security);
    }

    /** The address the broker listens on, {@code brokerIP1:listenPort}, whatever it registers. */
    static String listenAddress(BrokerController broker) {
        return broker.getBrokerConfig().getBrokerIP1() + ":" + broker.getListenPort();
    }

    /**
     * A broker that registers {@code brokerIP1:advertisedPort} in the name server instead of the
     * port it listens on. RocketMQ 5.5.0 has no setting for this: the address it registers, sends
     * with its heartbeats and unregisters is {@link BrokerController#getBrokerAddr()}, built from
     * {@code brokerIP1} and the remoting server's {@code listenPort}, which is also the port it
     * binds. Clients connect to the address the name server returns, so they reach this broker
     * at the advertised port. The constructor of {@link BrokerController} already calls
     * {@link #getBrokerAddr()} (for its master-slave member group, unused by a single master),
     * before this class's field is set: it gets the listen address there.
     */
    private static final class AdvertisingBroker extends BrokerController {

        private final int advertisedPort;

        AdvertisingBroker(BrokerConfig brokerConfig, NettyServerConfig server, NettyClientConfig client,
                MessageStoreConfig store, AuthConfig auth, int advertisedPort) {
            super(brokerConfig, server, client, store, auth);
            this.advertisedPort = advertisedPort;
        }

        @Override
        public String getBrokerAddr() {
            return advertisedPort == 0 ? super.getBrokerAddr() : getBrokerConfig().getBrokerIP1() + ":" + advertisedPort;
        }
    }

    /**
     * @param advertisedPort the port the broker registers in the name server, or 0 for the port it
     *     listens on
     */
    private static BrokerController startBroker(Path dir, String cluster, String brokerName,
            String nameServerAddress, int port, int haPort, int advertisedPort, BrokerSecurity security)
            throws Exception {
        NettyServerConfig server = new NettyServerConfig();
        server.setBindAddress(LOOPBACK);
        server.setListenPort(port);
        BrokerConfig brokerConfig = brokerConfig(dir, cluster, brokerName, nameServerAddress, port);
        MessageStoreConfig storeConfig = storeConfig(dir, haPort);
        AuthConfig auth = security.authConfig(dir, cluster, brokerName);
        BrokerController controller;
        // the broker's remoting client (registration with the name server) reads the TLS settings when it is made
        try (AutoCloseable tls = serverMode(security)) {
            controller = advertisedPort == 0
                    ? new BrokerController(brokerConfig, server, security.brokerClientConfig(), storeConfig, auth)
                    : new AdvertisingBroker(brokerConfig, server, security.brokerClientConfig(), storeConfig, auth,
                            advertisedPort);
            if (!controller.initialize()) {
                controller.shutdown();
                throw new IllegalStateException("RocketMQ broker did not initialize in " + dir
                        + (security.acl() ? " with ACL (authentication store " + auth.getAuthConfigPath() + ")" : "")
                        + (security.tls() != null ? " with TLS (certificate " + security.tls().certificate() + ")" : "")
                        + " (see its log, rocketmq.log under rocketmq.log.root)");
            }
        }
        controller.start();
        return controller;
    }

    /** TLS enforced with the broker's certificate while servers are created, when {@code security} has TLS. */
    private static AutoCloseable serverMode(BrokerSecurity security) {
        return security.tls() == null ? () -> { } : security.tls().serverMode();
    }

    static BrokerConfig brokerConfig(Path dir, String cluster, String brokerName,
            String nameServerAddress, int port) {
        BrokerConfig config = new BrokerConfig();
        config.setRocketmqHome(dir.toString());
        config.setBrokerClusterName(cluster);
        config.setBrokerName(brokerName);
        config.setBrokerId(MixAll.MASTER_ID);
        config.setBrokerIP1(LOOPBACK);
        config.setListenPort(port);
        config.setNamesrvAddr(nameServerAddress);
        config.setAutoCreateTopicEnable(true);
        // Right after start the JVM is cold: queued sends must wait, not fail with "broker busy".
        config.setBrokerFastFailureEnable(false);
        config.setWaitTimeMillsInSendQueue(3_000);
        // Check back unresolved transactions within seconds; the timeout stays above the op batch
        // interval, or already resolved half messages are checked again (and duplicated).
        config.setTransactionTimeOut(EmbeddedRocketMq.TRANSACTION_TIMEOUT.toMillis());
        config.setTransactionOpBatchInterval(1_000);
        config.setTransactionCheckInterval(1_000);
        return config;
    }

    static MessageStoreConfig storeConfig(Path dir, int haPort) {
        MessageStoreConfig config = new MessageStoreConfig();
        Path store = dir.resolve("store");
        config.setStorePathRootDir(store.toString());
        config.setStorePathCommitLog(store.resolve("commitlog").toString());
        config.setStorePathEpochFile(store.resolve("epochFileCheckpoint").toString());
        config.setStorePathBrokerIdentity(store.resolve("brokerIdentity").toString());
        config.setMappedFileSizeCommitLog(64 * 1024 * 1024);
        config.setMappedFileSizeConsumeQueue(20 * 50_000);
        config.setMappedFileSizeTimerLog(16 * 1024 * 1024);
        // the timer wheel (delayed messages) is a fixed 7 days of slots, about 39 MB, which its flush
        // compares byte by byte with the mapped file: once a second by default, 10-25 % of a core for
        // nothing in tests and in the bench (seen with JFR); the wheel in memory stays authoritative
        config.setTimerFlushIntervalMs(TIMER_FLUSH_INTERVAL_MS);
        config.setMaxHashSlotNum(10_000);
        config.setMaxIndexNum(40_000);
        config.setHaListenPort(haPort);
        config.setOsPageCacheBusyTimeOutMills(10_000);
        config.setDiskMaxUsedSpaceRatio(95);
        return config;
    }
}
