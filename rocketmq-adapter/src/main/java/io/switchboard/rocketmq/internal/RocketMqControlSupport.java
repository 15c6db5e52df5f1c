package io.switchboard.rocketmq.internal;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlNames;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Leadership;
import java.util.Comparator;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet control plane on RocketMQ: a {@link RocketMqControlLog} (a one-queue topic read with
 * the pull API) and a {@link RocketMqLeadership} (the broker's queue lock, the one orderly
 * consumption uses). Both live on the topic {@code name}, created with one queue as the
 * provisioner creates topics; on a cluster of several masters every master gets one queue and
 * the control plane uses queue 0 of the master whose name sorts first, so every replica agrees on
 * the one queue. Tracks what it opened and closes it with the adapter. Thread-safe.
 */
final class RocketMqControlSupport implements ControlSupport, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RocketMqControlSupport.class);

    private final Producers producers;
    private final RocketMqSettings settings;
    private final String clientName;
    private final RocketMqProvisioner provisioner;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    RocketMqControlSupport(Producers producers, RocketMqSettings settings, String clientName, RocketMqProvisioner provisioner) {
        this.producers = producers;
        this.settings = settings;
        this.clientName = clientName;
        this.provisioner = provisioner;
    }

    @Override
    public ControlLog openLog(String name) {
        MessageQueue queue = queueOf(ControlNames.check(name, "control log"));
        return track(new RocketMqControlLog(queue, producers, settings, clientName, open::remove));
    }

    @Override
    public Leadership campaign(String name, Leadership.Listener listener) {
        Objects.requireNonNull(listener, "listener");
        MessageQueue queue = queueOf(ControlNames.check(name, "leadership"));
        return track(new RocketMqLeadership(queue, listener, this, producers, settings, open::remove)).start();
    }

    private <C extends AutoCloseable> C track(C opened) {
        open.add(opened);
        if (closed) {
            closeQuietly(opened);
            throw closedError();
        }
        return opened;
    }

    private SwitchboardClosedException closedError() {
        return new SwitchboardClosedException("RocketMQ adapter of broker instance '" + settings.instanceName()
                + "' is closed; build a new Switchboard");
    }

    /** Creates topic {@code name} with one queue if it is missing (several replicas may race), and returns its queue. */
    private MessageQueue queueOf(String name) {
        if (closed) {
            throw closedError();
        }
        provisioner.ensureDestination(DestinationSpec.of(name, 1));
        String broker = route(name).getQueueDatas().stream()
                .filter(q -> q.getWriteQueueNums() > 0 && q.getReadQueueNums() > 0 && PermName.isWriteable(q.getPerm()))
                .map(QueueData::getBrokerName)
                .min(Comparator.naturalOrder())
                .orElseThrow(() -> new SwitchboardException("RocketMQ topic '" + name + "' has no readable and writable "
                        + "queue (name server " + settings.nameServer() + "); check its permissions with mqadmin topicRoute"));
        return new MessageQueue(name, broker, 0);
    }

    /** The address of the master broker holding {@code queue}. */
    String masterOf(MessageQueue queue) {
        for (BrokerData broker : route(queue.getTopic()).getBrokerDatas()) {
            String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (broker.getBrokerName().equals(queue.getBrokerName()) && master != null) {
                return master;
            }
        }
        throw new SwitchboardException("The name server " + settings.nameServer() + " knows no master of broker '"
                + queue.getBrokerName() + "' holding RocketMQ topic '" + queue.getTopic() + "'");
    }

    private TopicRouteData route(String topic) {
        try {
            return producers.api().getTopicRouteInfoFromNameServer(topic, settings.adminTimeout().toMillis(), false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwitchboardException("Interrupted while looking up RocketMQ topic '" + topic + "'", e);
        } catch (Exception e) {
            throw new SwitchboardException("Could not look up the route of RocketMQ topic '" + topic + "' on name server "
                    + settings.nameServer() + ": " + e.getMessage(), e);
        }
    }

    /** Closes every log and leadership still open. */
    @Override
    public void close() {
        closed = true;
        for (AutoCloseable c : Set.copyOf(open)) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.warn("Closing {} failed", c, e);
        }
    }
}
