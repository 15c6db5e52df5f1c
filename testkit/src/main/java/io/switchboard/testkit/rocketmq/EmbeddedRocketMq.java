package io.switchboard.testkit.rocketmq;

import io.switchboard.testkit.fault.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache RocketMQ 5.5.0 name server and broker, started inside the test JVM.
 *
 * <p>Both run from the Maven Central jars ({@code rocketmq-namesrv}, {@code rocketmq-broker}) with a
 * temporary store (64 MB commit-log files, small index and timer files), loopback addresses and free
 * ports. {@link #start()} returns only when the broker is registered in the name server and its
 * write path has taken a message; {@link #createTopic(String, int)} returns only when the name
 * server serves the topic's route, so a producer or consumer created afterwards sees every queue.
 *
 * <p>Typical use in a JUnit 5 test: one broker per test JVM, one topic (and one consumer group) per
 * test, since a RocketMQ broker takes seconds to start and 10-15 seconds to stop.
 *
 * <pre>{@code
 * class OrderEventsTest {
 *   static final EmbeddedRocketMq ROCKETMQ = EmbeddedRocketMq.shared();
 *
 *   @Test
 *   void publishesOrderEvents() throws Exception {
 *     ROCKETMQ.createTopic("order-events-1", 4);
 *     DefaultMQProducer producer = new DefaultMQProducer("order-producer");
 *     producer.setNamesrvAddr(ROCKETMQ.nameServerAddress());
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Things to know:
 * <ul>
 *   <li>Start the test JVM with {@code -Dtls.server.mode=disabled}; otherwise the broker generates a
 *       self-signed certificate at every start, which costs several seconds. Switchboard's parent
 *       pom sets it in surefire's {@code argLine}.
 *   <li>The broker's own logs go where the {@code rmq.logback-test.xml} shipped with this testkit
 *       sends them: errors to the console, everything from INFO up to
 *       {@code target/rocketmq-logs} (override with {@code -Drocketmq.log.root=DIR}, or put your own
 *       {@code rmq.logback-test.xml} first on the test classpath). RocksDB's own info log is written
 *       to {@code ~/logs/rocketmqlogs} whatever the settings; it is deleted with the store.
 *   <li>The broker is tuned for dependable tests, not for production: fast-failure of queued sends
 *       is off (no {@code [TIMEOUT_CLEAN_QUEUE] broker busy} while the JVM warms up), and
 *       transactional half messages are checked back after about {@link #TRANSACTION_TIMEOUT}
 *       instead of a minute.
 *   <li>{@link #shared()} starts one instance per JVM and stops it when the JVM exits; its
 *       {@link #close()} does nothing. Instances from {@link #start()} and
 *       {@link #startBehindProxy()} are yours to {@link #close()}.
 *   <li>For network faults, {@link #startBehindProxy()} puts a {@link TcpProxy} in front of the
 *       broker and has the broker register the proxy's address in the name server: clients
 *       (which connect to the broker address the name server returns) reach the broker only
 *       through {@link #brokerProxy()}, so its {@link TcpProxy#cut()}, {@link TcpProxy#delay(Duration)}
 *       and {@link TcpProxy#halfOpen()} hit every producer and consumer connection. The name
 *       server stays direct: clients keep getting routes during the fault, as they would with a
 *       name server cluster that only lost one broker.
 *   <li>For credentials and encryption, {@link #startWithAcl(String, String)} starts a broker with
 *       RocketMQ 5's ACL 2.0 on (one super user) and {@link #startWithTls()} one that takes TLS only,
 *       with a self-signed certificate; the latter sets RocketMQ's JVM-wide TLS settings while it runs.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class EmbeddedRocketMq implements AutoCloseable {

    /**
     * The names of the name server's and broker's request executors and other pools whose threads
     * start only once clients use them, for {@link io.switchboard.testkit.ThreadLeaks#ignoring}
     * (from rocketmq's broker, store and remoting sources; none is a client's thread name).
     */
    public static final String THREADS = "(AckMessage|AdminBroker|ClientManage|ClientRequestExecutor|ConsumerManage|EndTransaction|Heartbeat|LitePullMessage|LoadBalanceProcessor|ProcessReplyMessage|PullMessage|PutMessage|QueryMessage|SendMessage|RemotingExecutor)Thread_\\d+|compactionSchedule_\\d+|brokerOutApi_thread_\\d+|NettyServer.*|NettyEPOLLBoss_.*|NettyNIOBoss_.*";

    /** How long after a transactional half message the broker first asks the producer to resolve it. */
    public static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(4);

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRocketMq.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ROUTE_TIMEOUT = Duration.ofSeconds(30);
    private static final String CLUSTER = "SwitchboardTestCluster";
    private static final String BROKER_NAME = "switchboard-broker-a";
    private static final String WARM_UP_TOPIC = "switchboard_warm_up";
    private static final Object SHARED_LOCK = new Object();
    private static EmbeddedRocketMq shared;

    private final Path root;
    private final RocksDbInfoLogs rocksDbInfoLogs;
    private final NamesrvController nameServer;
    private volatile BrokerController broker;
    private final DefaultMQAdminExt admin;
    private final String nameServerAddress;
    private final TcpProxy proxy;
    private final BrokerSecurity security;
    private final boolean isShared;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedRocketMq(Path root, RocksDbInfoLogs rocksDbInfoLogs, RocketMqNodes nodes,
            DefaultMQAdminExt admin, BrokerSecurity security, boolean isShared) {
        this.security = security;
        this.root = root;
        this.rocksDbInfoLogs = rocksDbInfoLogs;
        this.nameServer = nodes.nameServer();
        this.broker = nodes.broker();
        this.nameServerAddress = nodes.nameServerAddress();
        this.proxy = nodes.proxy();
        this.admin = admin;
        this.isShared = isShared;
    }

    /**
     * Starts a new name server and broker; the caller must {@link #close()} it.
     *
     * @return a broker registered in its name server and ready to take messages
     * @throws IllegalStateException if the broker does not become ready within a minute
     */
    public static EmbeddedRocketMq start() {
        return start(false, false, null, null, false);
    }

    /**
     * Starts a new name server and a broker with RocketMQ 5's ACL 2.0 on: every request to the broker must be signed
     * with the credentials of a known user (authentication), and that user must be allowed what it asks
     * (authorization). The broker knows one user, {@code accessKey} with password {@code secretKey}, a super user
     * that may do everything; a client signs with RocketMQ's {@code AclClientRPCHook} and
     * {@code SessionCredentials(accessKey, secretKey)}. Users live in a RocksDB store under the broker's
     * directory and go with it. The name server checks no credentials (RocketMQ 5.5.0 has none there). The
     * testkit's own clients (topic creation, the start-up probe) sign with these credentials. The caller must
     * {@link #close()} it.
     *
     * @param accessKey the user name, not blank
     * @param secretKey its password, not blank
     * @return a broker registered in its name server and ready to take signed messages
     * @throws IllegalArgumentException if a key is blank
     * @throws IllegalStateException if the broker does not become ready within a minute, saying why
     */
    public static EmbeddedRocketMq startWithAcl(String accessKey, String secretKey) {
        if (accessKey == null || accessKey.isBlank() || secretKey == null || secretKey.isBlank()) {
            throw new IllegalArgumentException("An ACL broker needs a user: accessKey "
                    + (accessKey == null || accessKey.isBlank() ? "is blank" : "'" + accessKey + "'")
                    + " and secretKey " + (secretKey == null || secretKey.isBlank() ? "is blank" : "is set")
                    + "; give both, not blank");
        }
        return start(false, false, accessKey, secretKey, false);
    }

    /**
     * Starts a new name server and broker that take TLS connections only ({@code tls.server.mode=enforcing}), with
     * a self-signed certificate for {@code localhost} generated for them ({@link #tlsCertificate()}).
     *
     * <p>RocketMQ 5.5.0 keeps its TLS settings JVM-wide (static fields of {@code TlsSystemConfig}, from
     * {@code tls.*} system properties). While this instance runs, every RocketMQ client started in the JVM with
     * {@code setUseTLS(true)} verifies the broker's certificate against {@link #tlsCertificate()}
     * ({@code tls.test.mode.enable=false}, {@code tls.client.authServer=true}, {@code tls.client.trustCertPath});
     * {@link #close()} puts back what the JVM had. Servers started afterwards keep the JVM's mode (for Switchboard's
     * tests: {@code -Dtls.server.mode=disabled}). Run one TLS instance at a time. Clients without TLS cannot
     * connect to it. The caller must {@link #close()} it.
     *
     * <p>On Netty 4.2 the JVM needs {@code -Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE}:
     * RocketMQ 5.5.0 opens TLS connections without the peer's host name, which Netty 4.2 checks by default, so no
     * client could verify the certificate. The certificate itself is still verified.
     *
     * @return a broker registered in its name server over TLS and ready to take messages over TLS
     * @throws IllegalStateException if the JVM lacks that Netty setting, the certificate cannot be made or the broker
     *     does not become ready within a minute, saying why
     */
    public static EmbeddedRocketMq startWithTls() {
        TlsFiles.requireUsableHostNameCheck();
        return start(false, false, null, null, true);
    }

    /**
     * Starts a new name server and broker that clients reach only through a {@link TcpProxy}
     * ({@link #brokerProxy()}): the broker registers the proxy's address in the name server. The
     * name server itself is reached directly. The caller must {@link #close()} it, which closes
     * the proxy too.
     *
     * @return a broker registered (under its proxy's address) and ready to take messages
     * @throws IllegalStateException if the broker does not become ready within a minute
     */
    public static EmbeddedRocketMq startBehindProxy() {
        return start(false, true, null, null, false);
    }

    /**
     * The one instance of this JVM, started on first call and stopped when the JVM exits.
     *
     * @return the shared, ready broker; its {@link #close()} does nothing
     */
    public static EmbeddedRocketMq shared() {
        synchronized (SHARED_LOCK) {
            if (shared == null) {
                EmbeddedRocketMq started = start(true, false, null, null, false);
                Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "embedded-rocketmq-stop"));
                shared = started;
            }
            return shared;
        }
    }

    private static EmbeddedRocketMq start(boolean isShared, boolean behindProxy, String accessKey, String secretKey,
            boolean tls) {
        long startedAt = System.nanoTime();
        Path root = createRoot();
        RocksDbInfoLogs rocksDbInfoLogs = RocksDbInfoLogs.forStore(root);
        RocketMqNodes nodes = null;
        DefaultMQAdminExt admin = null;
        TlsFiles tlsFiles = null;
        try {
            tlsFiles = tls ? generateCertificate(root) : null;
            BrokerSecurity security = new BrokerSecurity(accessKey, secretKey, tlsFiles);
            nodes = RocketMqNodes.start(root, CLUSTER, BROKER_NAME, behindProxy, security);
            admin = startAdmin(nodes.nameServerAddress(), security);
            EmbeddedRocketMq rocketMq = new EmbeddedRocketMq(root, rocksDbInfoLogs, nodes, admin, security, isShared);
            rocketMq.awaitBrokerRegistered();
            rocketMq.warmUp();
            log.info("RocketMQ started in {} ms: name server {}, broker {}{}, store {}{}",
                    Duration.ofNanos(System.nanoTime() - startedAt).toMillis(), nodes.nameServerAddress(),
                    nodes.broker().getBrokerAddr(), behindProxy
                            ? " (a proxy to " + RocketMqNodes.listenAddress(nodes.broker()) + ")" : "", root,
                    security == BrokerSecurity.NONE ? "" : ", " + security);
            return rocketMq;
        } catch (RuntimeException | Error e) {
            if (admin != null) {
                admin.shutdown();
            }
            if (nodes != null) {
                nodes.shutdown();
            }
            if (tlsFiles != null) {
                tlsFiles.close();
            }
            deleteStore(root, rocksDbInfoLogs);
            throw e;
        }
    }

    private static TlsFiles generateCertificate(Path root) {
        try {
            return TlsFiles.generate(root.resolve("tls"));
        } catch (Exception e) {
            throw new IllegalStateException("Could not make a self-signed certificate for the TLS broker in "
                    + root.resolve("tls") + ": " + e, e);
        }
    }

    /**
     * {@return the PEM file of the self-signed certificate of a broker from {@link #startWithTls()}, which RocketMQ
     * clients in this JVM trust while it runs}
     *
     * @throws IllegalStateException if this instance has no TLS
     */
    public Path tlsCertificate() {
        if (security.tls() == null) {
            throw new IllegalStateException("EmbeddedRocketMq at " + nameServerAddress + " has no TLS: start it with "
                    + "EmbeddedRocketMq.startWithTls()");
        }
        return security.tls().certificate();
    }

    /** {@return the name server address for clients, as {@code host:port} ({@code setNamesrvAddr(..)})} */
    public String nameServerAddress() {
        return nameServerAddress;
    }

    /**
     * {@return the broker's address as {@code host:port}, as registered in the name server: the one clients connect
     * to (the proxy's, for {@link #startBehindProxy()})}
     */
    public String brokerAddress() {
        return broker.getBrokerAddr();
    }

    /**
     * {@return the proxy in front of the broker, for cutting, delaying or stalling every client connection to it;
     * {@link TcpProxy#restore()} and {@code delay(Duration.ZERO)} heal it}
     *
     * @throws IllegalStateException if this instance was not started with {@link #startBehindProxy()}
     */
    public TcpProxy brokerProxy() {
        if (proxy == null) {
            throw new IllegalStateException("EmbeddedRocketMq at " + nameServerAddress + " has no proxy in front of "
                    + "its broker: start it with EmbeddedRocketMq.startBehindProxy()");
        }
        return proxy;
    }

    /** {@return the cluster the broker belongs to} */
    public String clusterName() {
        return CLUSTER;
    }

    /**
     * Creates a topic, or updates its queue counts, and waits until the name server routes it.
     *
     * @param topic a valid RocketMQ topic name (letters, digits, {@code %|-_}, at most 127 chars)
     * @param queues read and write queues, at least 1
     * @throws IllegalArgumentException if {@code queues} is below 1
     * @throws IllegalStateException if the broker refuses the topic or the route does not appear
     */
    public void createTopic(String topic, int queues) {
        if (queues < 1) {
            throw new IllegalArgumentException(
                    "queues must be at least 1 but was " + queues + " for topic '" + topic + "'");
        }
        ensureOpen();
        TopicConfig config = new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE);
        try {
            // straight to the broker, not through its proxy: topics can be made while the proxy is cut
            admin.createAndUpdateTopicConfig(RocketMqNodes.listenAddress(broker), config);
        } catch (Exception e) {
            throw new IllegalStateException("Broker " + broker.getBrokerAddr()
                    + " refused to create topic '" + topic + "' with " + queues + " queues: " + e.getMessage(), e);
        }
        Polling.await("route of topic '" + topic + "' with " + queues + " queues", ROUTE_TIMEOUT,
                () -> routeHasQueues(topic, queues));
    }

    /**
     * Restarts the broker as an operator would: shuts it down (its store stays), then starts a new
     * one on the same port with the same store directory, and waits until it is registered in the
     * name server again. The name server keeps running. Clients see the broker go away for the
     * 10-20 seconds a RocketMQ broker takes to stop and start, then come back with every message it
     * had stored and every committed consumer offset. Not for the {@link #shared()} instance, which
     * other tests use.
     *
     * @throws IllegalStateException if this is the shared instance, it is closed, or the new broker
     *     does not start or register within a minute
     */
    public synchronized void restartBroker() {
        if (isShared) {
            throw new IllegalStateException("restartBroker() is not for the shared EmbeddedRocketMq, which other "
                    + "tests use: start a dedicated one with EmbeddedRocketMq.start()");
        }
        ensureOpen();
        long stoppingAt = System.nanoTime();
        String address = broker.getBrokerAddr();
        try {
            broker = RocketMqNodes.restartBroker(broker, security);
        } catch (Exception e) {
            throw new IllegalStateException("Could not restart the RocketMQ broker at " + address + " on its store "
                    + root + ": " + e.getMessage(), e);
        }
        awaitBrokerRegistered();
        log.info("RocketMQ broker at {} restarted in {} ms", broker.getBrokerAddr(),
                Duration.ofNanos(System.nanoTime() - stoppingAt).toMillis());
    }

    /**
     * Stops the broker and name server and deletes their files; later calls do nothing. Takes 10-15
     * seconds (RocketMQ's own shutdown). Does nothing on the {@link #shared()} instance, which stops
     * when the JVM exits.
     */
    @Override
    public void close() {
        if (isShared) {
            log.debug("close() ignored on the shared EmbeddedRocketMq: it stops when the JVM exits");
            return;
        }
        stop();
    }

    private void stop() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long stoppingAt = System.nanoTime();
        admin.shutdown();
        RocketMqNodes.shutdown(broker, nameServer);
        if (proxy != null) {
            proxy.close();
        }
        if (security.tls() != null) {
            security.tls().close();
        }
        deleteStore(root, rocksDbInfoLogs);
        log.info("RocketMQ at {} stopped in {} ms", nameServerAddress,
                Duration.ofNanos(System.nanoTime() - stoppingAt).toMillis());
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("EmbeddedRocketMq at " + nameServerAddress
                    + " is closed: start a new one with EmbeddedRocketMq.start() or use EmbeddedRocketMq.shared()");
        }
    }

    private void awaitBrokerRegistered() {
        Polling.await("broker " + BROKER_NAME + " registered in name server " + nameServerAddress,
                READY_TIMEOUT, () -> {
                    BrokerData registered = admin.examineBrokerClusterInfo().getBrokerAddrTable().get(BROKER_NAME);
                    return registered != null && broker.getBrokerAddr().equals(registered.selectBrokerAddr());
                });
    }

    /** Maps the first commit-log file and proves the write path before any test sends. */
    private void warmUp() {
        createTopic(WARM_UP_TOPIC, 1);
        RocketMqNodes.sendProbe(nameServerAddress, WARM_UP_TOPIC, security);
    }

    private boolean routeHasQueues(String topic, int queues) throws Exception {
        TopicRouteData route;
        try {
            route = admin.examineTopicRouteInfo(topic);
        } catch (MQClientException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return false;
            }
            throw e;
        }
        for (QueueData queue : route.getQueueDatas()) {
            if (BROKER_NAME.equals(queue.getBrokerName())
                    && queue.getReadQueueNums() == queues && queue.getWriteQueueNums() == queues) {
                return true;
            }
        }
        return false;
    }

    private static DefaultMQAdminExt startAdmin(String nameServerAddress, BrokerSecurity security) {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(security.rpcHook(), READY_TIMEOUT.toMillis());
        admin.setNamesrvAddr(nameServerAddress);
        security.configure(admin);
        admin.setInstanceName("embedded-rocketmq-admin-" + System.nanoTime());
        admin.setAdminExtGroup("embedded_rocketmq_admin_" + System.nanoTime());
        try {
            admin.start();
        } catch (MQClientException e) {
            throw new IllegalStateException("Could not start the RocketMQ admin client for name server "
                    + nameServerAddress + ": " + e.getMessage(), e);
        }
        return admin;
    }

    private static Path createRoot() {
        try {
            return Files.createTempDirectory("embedded-rocketmq-");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temp directory for the RocketMQ store in "
                    + System.getProperty("java.io.tmpdir") + ": set -Djava.io.tmpdir to a writable directory", e);
        }
    }

    private static void deleteStore(Path root, RocksDbInfoLogs rocksDbInfoLogs) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            rocksDbInfoLogs.delete();
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete RocketMQ store {} or its RocksDB logs: {}", root, e.toString());
        }
    }
}
