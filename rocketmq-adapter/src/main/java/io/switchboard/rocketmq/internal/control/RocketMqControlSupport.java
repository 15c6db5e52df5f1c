package io.switchboard.rocketmq.internal.control;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.rocketmq.internal.provision.RocketMqProvisioner;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlSupportBase;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Leadership;
import java.util.Comparator;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

/**
 * The fleet control plane on RocketMQ: a {@link RocketMqControlLog} (a one-queue topic read with
 * the pull API) and a {@link RocketMqLeadership} (the broker's queue lock, the one orderly
 * consumption uses). Both live on the topic {@code name}, created with one queue as the
 * provisioner creates topics; on a cluster of several masters every master gets one queue and
 * the control plane uses queue 0 of the master whose name sorts first, so every replica agrees on
 * the one queue. Tracks what it opened and closes it with the adapter. Thread-safe.
 */
public final class RocketMqControlSupport extends ControlSupportBase implements AutoCloseable {


    private final Producers producers;
    private final RocketMqSettings settings;
    private final String clientName;
    private final RocketMqProvisioner provisioner;

    public RocketMqControlSupport(Producers producers, RocketMqSettings settings, String clientName, RocketMqProvisioner provisioner) {
        this.producers = producers;
        this.settings = settings;
        this.clientName = clientName;
        this.provisioner = provisioner;
    }

    @Override
    protected ControlLog newLog(String name) {
        return new RocketMqControlLog(queueOf(name), producers, settings, clientName, this::forget);
    }

    @Override
    protected Leadership newLeadership(String name, Leadership.Listener listener) {
        return new RocketMqLeadership(queueOf(name), listener, this, producers, settings, this::forget);
    }

    @Override
    protected Leadership started(Leadership leadership) {
        return ((RocketMqLeadership) leadership).start();
    }

    @Override
    protected SwitchboardClosedException closedError(String what) {
        return new SwitchboardClosedException("RocketMQ adapter of broker instance '" + settings.instanceName()
                + "' is closed (cannot open " + what + "); build a new Switchboard");
    }

    /** Creates topic {@code name} with one queue if it is missing (several replicas may race), and returns its queue. */
    private MessageQueue queueOf(String name) {
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
        closeOpened();
    }
}
