package io.switchboard.rocketmq.internal.client;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.EventKinds;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an adapter's client sees of its brokers, as client events. rocketmq-client has no connection listener, so one
 * thread per adapter reads, every {@value #EVERY_MILLIS} ms, the routes its client holds (refreshed from the name
 * server every {@code rocketmq.route-refresh}) and asks each broker group's master for an answer on the client's own
 * connection (a heartbeat that carries only the client's id: the broker registers nothing from it).
 * <ul>
 *   <li>{@link EventKinds#CONNECTION_LOST}: a master that does not answer within the send time-out (refused, reset,
 *       silent) opens a span, subject the broker group's name, detail the address and the reason; the group's next
 *       answer (from a new master too) ends it. An answer that is an error still proves the connection. A group no
 *       route names any more ends its span; a group without a master for a while (between a master's loss and its
 *       successor's registration) keeps it open.</li>
 *   <li>{@link EventKinds#LEADER_CHANGE}: a broker group's master address in the routes differs from the one seen
 *       before (controller-mode or DLedger failover, a master replaced): an instant, subject the group's name, detail
 *       the old and new address and the topics the client uses there.</li>
 * </ul>
 *
 * <p>Runs only while something listens ({@link ClientEvents#NONE} starts no thread) and only once the adapter has a
 * started client; nothing per message. {@link #close()} stops the thread and ends any open span.
 */
public final class BrokerWatch implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BrokerWatch.class);
    /** How often the watch asks each broker, in milliseconds. */
    public static final long EVERY_MILLIS = 1000;
    private static final int MAX_TOPICS_NAMED = 5;

    private final ClientEvents events;
    private final Supplier<MQClientInstance> client;
    private final long timeoutMillis;
    private final ScheduledExecutorService thread;
    /** Open spans by broker name; the watch thread's only (and {@link #close()}'s once it stopped). */
    private final Map<String, ClientEvents.Span> lost = new HashMap<>();
    /** The master address each broker group had when last seen with one; the watch thread's only. */
    private final Map<String, String> masters = new HashMap<>();
    private volatile boolean closed;

    private BrokerWatch(String instance, ClientEvents events, Supplier<MQClientInstance> client, Duration timeout) {
        this.events = events;
        this.client = client;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("switchboard-rocketmq-watch-"
                + instance));
    }

    /**
     * Starts the watch of an adapter's client, or nothing when nobody listens.
     *
     * @param instance the broker instance's name, for the thread's name
     * @param events where the spans go
     * @param client the adapter's started client instance to ask through, or null while it has none
     * @param timeout how long a broker has to answer
     * @return the running watch, to close with the adapter; null when {@code events} is {@link ClientEvents#NONE}
     */
    public static BrokerWatch start(String instance, ClientEvents events, Supplier<MQClientInstance> client,
            Duration timeout) {
        if (events == ClientEvents.NONE) {
            return null;
        }
        BrokerWatch watch = new BrokerWatch(instance, events, client, timeout);
        watch.thread.scheduleWithFixedDelay(watch::check, EVERY_MILLIS, EVERY_MILLIS, TimeUnit.MILLISECONDS);
        return watch;
    }

    private void check() {
        try {
            checkOnce();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.debug("Checking the RocketMQ broker connections failed", e);
        }
    }

    /** Notes master moves in the client's routes, then asks each master broker once. */
    private void checkOnce() throws InterruptedException {
        MQClientInstance instance = client.get();
        if (instance == null || instance.getMQClientAPIImpl() == null) {
            return;
        }
        Map<String, Group> groups = groups(instance);
        lost.entrySet().removeIf(span -> {
            boolean gone = !groups.containsKey(span.getKey());
            if (gone) { // no route of the client names the group any more
                span.getValue().end();
            }
            return gone;
        });
        masters.keySet().retainAll(groups.keySet());
        HeartbeatData probe = null;
        for (Map.Entry<String, Group> entry : groups.entrySet()) {
            String name = entry.getKey();
            String master = entry.getValue().master;
            if (master == null) { // between a master's loss and its successor's registration: nothing to ask yet
                continue;
            }
            String before = masters.put(name, master);
            if (before != null && !before.equals(master)) {
                events.instant(EventKinds.LEADER_CHANGE, name, "master of broker group '" + name + "' moved from "
                        + before + " to " + master + " (queues of " + entry.getValue().topics() + ")");
                log.info("RocketMQ broker group {}: master moved from {} to {}", name, before, master);
            }
            if (closed) {
                return;
            }
            if (probe == null) {
                probe = new HeartbeatData();
                probe.setClientID(instance.getClientId());
            }
            String reason = ask(instance, master, probe);
            ClientEvents.Span span = lost.get(name);
            if (reason == null && span != null) {
                span.end();
                lost.remove(name);
                log.info("RocketMQ broker {} at {} answers again", name, master);
            } else if (reason != null && span == null) {
                lost.put(name, events.begin(EventKinds.CONNECTION_LOST, name, master + " does not answer: " + reason));
                log.info("RocketMQ broker {} at {} does not answer: {}", name, master, reason);
            }
        }
    }

    /** A broker group in the client's routes: its master's address (null while it has none) and the topics on it. */
    private static final class Group {
        String master;
        final Set<String> topics = new TreeSet<>();

        String topics() {
            return topics.size() <= MAX_TOPICS_NAMED ? String.join(", ", topics)
                    : String.join(", ", List.copyOf(topics).subList(0, MAX_TOPICS_NAMED)) + " and "
                            + (topics.size() - MAX_TOPICS_NAMED) + " more topics";
        }
    }

    /** The broker groups of the client's routes by name. */
    private static Map<String, Group> groups(MQClientInstance instance) {
        Map<String, Group> groups = new LinkedHashMap<>();
        for (Map.Entry<String, TopicRouteData> route : instance.getTopicRouteTable().entrySet()) {
            if (route.getValue() == null || route.getValue().getBrokerDatas() == null) {
                continue;
            }
            for (BrokerData broker : route.getValue().getBrokerDatas()) {
                Group group = groups.computeIfAbsent(broker.getBrokerName(), name -> new Group());
                group.topics.add(route.getKey());
                String address = broker.getBrokerAddrs() == null ? null : broker.getBrokerAddrs().get(MixAll.MASTER_ID);
                if (address != null) {
                    group.master = address;
                }
            }
        }
        return groups;
    }

    /** Null when the broker answered, else why not. */
    private String ask(MQClientInstance instance, String address, HeartbeatData probe) throws InterruptedException {
        try {
            instance.getMQClientAPIImpl().sendHeartbeat(address, probe, timeoutMillis);
            return null;
        } catch (MQBrokerException e) { // an answer, though an error
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            String message = e.getMessage();
            return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
        }
    }

    /** Stops the thread (waiting up to the answer time-out for a question in flight) and ends any open span. */
    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(timeoutMillis + 1000, TimeUnit.MILLISECONDS)) {
                log.warn("The RocketMQ broker watch did not stop within {} ms", timeoutMillis + 1000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lost.values().forEach(ClientEvents.Span::end);
        lost.clear();
    }
}
