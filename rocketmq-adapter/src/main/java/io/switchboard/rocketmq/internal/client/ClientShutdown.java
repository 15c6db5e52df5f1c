package io.switchboard.rocketmq.internal.client;

import io.switchboard.spi.DaemonThreads;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.remoting.RemotingClient;
import org.apache.rocketmq.remoting.netty.NettyEvent;
import org.apache.rocketmq.remoting.netty.NettyEventType;
import org.apache.rocketmq.remoting.netty.NettyRemotingAbstract;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuts a rocketmq-client producer or consumer down without the client's idle wait of up to 3 s.
 *
 * <p>When the last producer or consumer of a client instance shuts down, the instance's
 * {@code NettyRemotingClient.shutdown()} stops its channel-event thread and joins it; that
 * thread waits for the next channel event with {@code poll(3000 ms)} and only then sees that it
 * was stopped, so each client instance took up to 3 s to close (a Switchboard on RocketMQ closes
 * at least one; a second member of a group in the same adapter has its own). While the shutdown
 * runs, this wakes the thread every 20 ms with an idle event, which rocketmq-client 5.5's
 * listener ignores ({@code onChannelIdle} does nothing), so it ends as soon as it is stopped.
 * A client instance that stays up (another producer or consumer still uses it) only handles a
 * few of those no-op events.
 */
public final class ClientShutdown {

    private static final Logger log = LoggerFactory.getLogger(ClientShutdown.class);
    private static final long WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final String WAKE_UP = "switchboard-shutdown";

    private ClientShutdown() {
    }

    /**
     * Runs {@code shutdown} (the producer's or consumer's) while waking {@code client}'s event thread.
     *
     * @param client the client instance the producer or consumer runs in; null runs {@code shutdown} alone
     * @param shutdown the producer's or consumer's {@code shutdown()}
     */
    public static void run(MQClientInstance client, Runnable shutdown) {
        NettyRemotingAbstract remoting = remoting(client);
        if (remoting == null) {
            shutdown.run();
            return;
        }
        Thread caller = Thread.currentThread();
        Thread waker = DaemonThreads.newThread("switchboard-rocketmq-shutdown", () -> {
            NettyEvent wakeUp = new NettyEvent(NettyEventType.IDLE, WAKE_UP, null);
            while (caller.isAlive() && !Thread.currentThread().isInterrupted()) {
                remoting.putNettyEvent(wakeUp);
                LockSupport.parkNanos(WAKE_NANOS);
            }
        });
        waker.start();
        try {
            shutdown.run();
        } finally {
            waker.interrupt();
        }
    }

    private static NettyRemotingAbstract remoting(MQClientInstance client) {
        if (client == null || client.getMQClientAPIImpl() == null) {
            return null;
        }
        RemotingClient remoting = client.getMQClientAPIImpl().getRemotingClient();
        if (remoting instanceof NettyRemotingAbstract netty) {
            return netty;
        }
        log.debug("RocketMQ remoting client {} is not Netty's: shutting down without waking its event thread", remoting);
        return null;
    }
}
