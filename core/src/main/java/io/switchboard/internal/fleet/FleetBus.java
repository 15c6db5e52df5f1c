package io.switchboard.internal.fleet;

import io.switchboard.Delivery;
import io.switchboard.internal.Instance;
import io.switchboard.internal.Validation;
import io.switchboard.internal.comparison.FleetTraffic;
import io.switchboard.internal.comparison.TrafficBook;
import io.switchboard.routing.Fleet;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's bus: an ordinary broadcast destination on the control instance on which every
 * replica sends, once a second, a heartbeat (its route version, whether it leads, its status, the
 * destinations it still drains) with its traffic figures of the second that just ended. Nothing
 * on it is durable: a replica that misses heartbeats for {@code replica-timeout} is taken as
 * gone, and its figures age out of the comparison window.
 */
final class FleetBus implements RecordListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FleetBus.class);
    private static final int FORMAT = 1;
    private static final int HEARTBEAT = 0;
    private static final int LEAVING = 1;

    /** A replica's last heartbeat, and when it arrived. */
    private record Heard(String id, long sentAt, long routeVersion, boolean leader, Fleet.Status status, Set<String> draining,
            long arrivedAt) {}

    /** A caller of {@link #drained} waiting for every live replica to report a destination drained. */
    private record DrainWait(String destination, long since, CompletableFuture<Void> done) {}

    private final Instance control;
    private final FleetSettings settings;
    private final FleetTraffic traffic;
    private final Clock clock;
    private final Map<String, Heard> heard = new ConcurrentHashMap<>();
    /** The replicas noted as gone because they fell silent (their last heartbeat stays in {@link #heard}). */
    private final Set<String> silent = ConcurrentHashMap.newKeySet();
    private final List<DrainWait> drainWaits = new CopyOnWriteArrayList<>();
    private volatile RawPublisher publisher;
    private volatile RawConsumer consumer;
    private volatile long lastSendFailureLog;
    /** The newest second whose figures were sent (the ticker may skip or repeat a second). */
    private volatile long lastSecondSent = Long.MIN_VALUE / 2;
    /** {@link #lastSecondSent} before the heartbeat being sent (one is in flight at a time). */
    private volatile long sentBefore = Long.MIN_VALUE / 2;
    /**
     * Sends heartbeats, so that a client that blocks in its send (kafka-clients waits up to
     * {@code max.block.ms} for metadata while its broker is unreachable) never holds the routing
     * ticker; while one send is under way, the next heartbeats are skipped and their seconds go
     * with the next one sent.
     */
    private final java.util.concurrent.ExecutorService sender = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "switchboard-fleet-bus");
        t.setDaemon(true);
        return t;
    });
    private final java.util.concurrent.atomic.AtomicBoolean sending = new java.util.concurrent.atomic.AtomicBoolean();

    FleetBus(Instance control, FleetSettings settings, FleetTraffic traffic, Clock clock) {
        this.control = control;
        this.settings = settings;
        this.traffic = traffic;
        this.clock = clock;
    }

    /** Provisions the bus destination and subscribes to it as a broadcast subscriber. */
    void start() {
        String bus = settings.busName();
        Validation.autoProvision(control.config(), control.capabilities(), control.adapter().provisioner(), bus);
        // the bus's keys are replica names, whatever key format the instance's own messages use
        Map<String, String> textKeys = Map.of(KeyFormat.PROPERTY, KeyFormat.STRING.id());
        publisher = control.created("the fleet bus publisher", bus,
                () -> control.adapter().createPublisher(new PublisherSpec(bus, Delivery.AT_MOST_ONCE, textKeys)));
        consumer = control.created("the fleet bus subscriber", bus, () -> control.adapter().createConsumer(new ConsumerSpec(bus,
                bus + "-" + settings.replica(), true, Delivery.AT_MOST_ONCE, 1_000, null, textKeys)));
        consumer.start(this).toCompletableFuture().orTimeout(settings.startupTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(e -> {
                    log.warn("Fleet '{}': the bus subscriber on instance '{}' is not ready yet ({}); other replicas' heartbeats "
                            + "and figures arrive once it is", settings.fleet(), control.name(), e.toString());
                    return null;
                });
    }

    /** Sends this replica's heartbeat and its traffic of {@code second}; never blocks, never throws. */
    void heartbeat(long second, long routeVersion, boolean leader, Fleet.Status status, Set<String> draining) {
        RawPublisher p = publisher;
        if (p == null || !sending.compareAndSet(false, true)) {
            return;
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeByte(FORMAT);
                out.writeByte(HEARTBEAT);
                out.writeUTF(settings.replica());
                out.writeLong(clock.millis());
                out.writeLong(routeVersion);
                out.writeBoolean(leader);
                out.writeByte(status.ordinal());
                out.writeInt(draining.size());
                for (String d : draining) {
                    out.writeUTF(d);
                }
                TrafficBook book = control.shared().traffic();
                out.writeBoolean(book != null);
                sentBefore = lastSecondSent;
                if (book != null) {
                    out.write(FleetTraffic.encode(book, lastSecondSent, second));
                    lastSecondSent = Math.max(lastSecondSent, second);
                }
            }
            OutboundRecord record = new OutboundRecord(settings.busName(), settings.replica(), Map.of(), bytes.toByteArray(), 0);
            sender.execute(() -> send(p, record));
        } catch (IOException e) {
            sending.set(false);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            sending.set(false);
            sendFailed(e);
        }
    }

    private void send(RawPublisher p, OutboundRecord record) {
        try {
            long before = sentBefore;
            p.send(record).whenComplete((r, e) -> {
                if (e != null) {
                    resendAfter(before);
                    sendFailed(e);
                }
            });
        } catch (RuntimeException e) {
            resendAfter(sentBefore);
            sendFailed(e);
        } finally {
            sending.set(false);
        }
    }

    /** A heartbeat that was not sent carried the seconds after {@code before}: the next one sends them again (at most 5). */
    private void resendAfter(long before) {
        lastSecondSent = Math.min(lastSecondSent, before);
    }

    private void sendFailed(Throwable e) {
        long now = clock.millis();
        if (now - lastSendFailureLog > 60_000) {
            lastSendFailureLog = now;
            log.warn("Fleet '{}': heartbeat on instance '{}' not sent ({}); other replicas see this one again once it is",
                    settings.fleet(), control.name(), e.toString());
        }
    }

    @Override
    public void onRecord(InboundRecord record) {
        record.ack();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(record.payload()))) {
            if (in.readByte() != FORMAT) {
                return;
            }
            int kind = in.readByte();
            String id = in.readUTF();
            if (kind == LEAVING) {
                if (heard.remove(id) != null) { // its figures stay in the window until they age out
                    control.shared().events().everywhere(EventKinds.REPLICA_LEFT, id, "said goodbye");
                }
                return;
            }
            long sentAt = in.readLong();
            long version = in.readLong();
            boolean leader = in.readBoolean();
            Fleet.Status status = Fleet.Status.values()[in.readByte()];
            int n = in.readInt();
            Set<String> draining = n == 0 ? Set.of() : new java.util.HashSet<>();
            for (int i = 0; i < n; i++) {
                draining.add(in.readUTF());
            }
            if (id.equals(settings.replica())) {
                return;
            }
            Heard before = heard.put(id, new Heard(id, sentAt, version, leader, status, draining, clock.millis()));
            if (before == null || clock.millis() - before.arrivedAt > settings.replicaTimeout().toMillis()) {
                control.shared().events().everywhere(EventKinds.REPLICA_JOINED, id, before == null ? "first heartbeat"
                        : "heard again after " + (clock.millis() - before.arrivedAt) + " ms");
            }
            if (in.readBoolean()) {
                traffic.received(id, in);
            }
        } catch (IOException | java.util.zip.DataFormatException | RuntimeException e) {
            log.debug("Fleet '{}': ignoring a bus message that is not a heartbeat: {}", settings.fleet(), e.toString());
        }
    }

    @Override
    public void onFailure(Throwable error) {
        log.warn("Fleet '{}': the bus subscriber on instance '{}' failed: {}", settings.fleet(), control.name(), error.toString());
    }

    /** The live replicas, {@code self} first, with whether each is in step with the newest. */
    List<Fleet.Replica> replicas(Fleet.Replica self) {
        long now = clock.millis();
        long timeout = settings.replicaTimeout().toMillis();
        List<Heard> live = heard.values().stream().filter(h -> now - h.arrivedAt <= timeout).toList();
        long newest = Math.max(self.routeVersion(), live.stream().mapToLong(Heard::routeVersion).max().orElse(0));
        List<Fleet.Replica> all = new ArrayList<>();
        all.add(new Fleet.Replica(self.id(), self.routeVersion(), self.routeVersion() == newest, self.leader(), self.status(),
                self.lastSeen()));
        live.stream().sorted((a, b) -> a.id.compareTo(b.id)).forEach(h -> all.add(new Fleet.Replica(h.id, h.routeVersion,
                h.routeVersion == newest, h.leader, h.status, Instant.ofEpochMilli(h.sentAt))));
        return all;
    }

    /** Completes when every replica alive now has sent a heartbeat after this call that does not list {@code destination} as draining. */
    CompletionStage<Void> drained(String destination) {
        DrainWait w = new DrainWait(destination, clock.millis(), new CompletableFuture<>());
        drainWaits.add(w);
        checkDrains();
        return w.done;
    }

    /** Completes the drain waits that hold, and notes the replicas not heard for the replica timeout; on the ticker. */
    void checkDrains() {
        long now = clock.millis();
        long timeout = settings.replicaTimeout().toMillis();
        for (Heard h : heard.values()) {
            if (now - h.arrivedAt > timeout && silent.add(h.id)) {
                control.shared().events().everywhere(EventKinds.REPLICA_LEFT, h.id, "not heard for " + (now - h.arrivedAt) + " ms");
            } else if (now - h.arrivedAt <= timeout) {
                silent.remove(h.id);
            }
        }
        for (DrainWait w : drainWaits) {
            boolean all = true;
            for (Heard h : heard.values()) {
                if (now - h.arrivedAt > timeout) {
                    continue; // gone
                }
                if (h.sentAt < w.since || h.draining.contains(w.destination)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                drainWaits.remove(w);
                w.done.complete(null);
            }
        }
        traffic.forgetOlderThan(now / 1000 - 3600);
    }

    /** Tells the other replicas this one is leaving, so that they stop counting it at once; waits at most a second. */
    private void sayGoodbye(RawPublisher p) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeByte(LEAVING);
            out.writeUTF(settings.replica());
            p.send(new OutboundRecord(settings.busName(), settings.replica(), Map.of(), bytes.toByteArray(), 0))
                    .get(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("Fleet '{}': goodbye not sent ({}); the others drop this replica after the replica timeout", settings.fleet(),
                    e.toString());
        }
    }

    @Override
    public void close() {
        RawPublisher goodbye = publisher;
        if (goodbye != null) {
            sayGoodbye(goodbye);
        }
        RawConsumer c = consumer;
        if (c != null) {
            c.stop();
            c.close();
        }
        RawPublisher p = publisher;
        if (p != null) {
            p.close();
        }
        drainWaits.forEach(w -> w.done.cancel(false));
        sender.shutdownNow();
    }
}
