package io.switchboard.testkit.rocketmq;

import java.nio.file.Path;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.BrokerRole;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * One broker of a {@link RocketMqCluster}, in a JVM of its own so that a test can kill it with
 * {@code kill -9} or freeze it with {@code SIGSTOP}. Arguments: store directory, cluster name,
 * broker name, name server address, controller address, listen port, HA port, and optionally the
 * address it listens on and registers (default 127.0.0.1: a node in a network namespace of its
 * own has another). Starts the broker in
 * controller mode (the controller makes it master or slave), prints {@code @@ started}, and shuts
 * it down on SIGTERM.
 *
 * <p>Replication settings, the ones that keep an acknowledged message through the loss of one
 * broker: {@code allAckInSyncStateSet=true} (a send is answered {@code SEND_OK} only once every
 * replica in the SyncStateSet has it), {@code minInSyncReplicas=2} (with fewer the master refuses
 * sends: {@code IN_SYNC_REPLICAS_NOT_ENOUGH}), unclean election off (the controller's default). A
 * replica that has not caught up for 5 s leaves the SyncStateSet (RocketMQ's default: 15 s), and the
 * broker reports to the controller every 2 s, so that a dead replica holds sends up for seconds,
 * not a quarter of a minute.
 */
public final class RocketMqNodeMain {

    /** Replicas in a broker group of the cluster. */
    static final int REPLICAS = 3;
    /** Replicas that must have a message before the master answers SEND_OK. */
    static final int MIN_IN_SYNC = 2;

    private RocketMqNodeMain() {}

    /**
     * Entry point; see the class comment for the arguments.
     *
     * @param args the arguments
     * @throws Exception any failure, which ends the node with its stack trace in its log
     */
    public static void main(String[] args) throws Exception {
        // as mqbroker's BrokerStartup does: without it requests carry version 0, and the name server
        // reads a registration as a pre-3.0.11 broker's, without its topics
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
        Path dir = Path.of(args[0]);
        int port = Integer.parseInt(args[5]);
        String address = args.length > 7 ? args[7] : "127.0.0.1";
        BrokerConfig broker = RocketMqNodes.brokerConfig(dir, args[1], args[2], args[3], port);
        broker.setBrokerIP1(address);
        broker.setBrokerIP2(address);
        broker.setEnableControllerMode(true);
        broker.setControllerAddr(args[4]);
        broker.setSyncBrokerMetadataPeriod(2_000);
        broker.setCheckSyncStateSetPeriod(2_000);
        broker.setBrokerHeartbeatInterval(1_000);
        broker.setControllerHeartBeatTimeoutMills(6_000);
        MessageStoreConfig store = RocketMqNodes.storeConfig(dir, Integer.parseInt(args[6]));
        store.setBrokerRole(BrokerRole.SLAVE);
        store.setAllAckInSyncStateSet(true);
        store.setTotalReplicas(REPLICAS);
        store.setInSyncReplicas(MIN_IN_SYNC);
        store.setMinInSyncReplicas(MIN_IN_SYNC);
        store.setHaMaxTimeSlaveNotCatchup(5_000);
        store.setHaSendHeartbeatInterval(1_000);
        NettyServerConfig server = new NettyServerConfig();
        server.setBindAddress(address);
        server.setListenPort(port);
        BrokerController controller = new BrokerController(broker, server, new NettyClientConfig(), store);
        if (!controller.initialize()) {
            controller.shutdown();
            throw new IllegalStateException("RocketMQ broker did not initialize in " + dir);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            controller.shutdown();
            RocketMqNodes.stopLeakedRocksDbScheduler(controller);
        }, "rocketmq-node-shutdown"));
        controller.start();
        System.out.println("@@ started");
        System.out.flush();
    }
}
