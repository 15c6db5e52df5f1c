package io.switchboard.rocketmq.internal.control;

import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.spi.ControlNames;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.Leadership;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.body.LockBatchRequestBody;
import org.apache.rocketmq.remoting.protocol.body.UnlockBatchRequestBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election with the broker's queue lock, the primitive RocketMQ's orderly consumption
 * uses ({@code lockBatchMQ}): the broker grants the lock of a queue, per consumer group, to one
 * client id at a time, and lets it expire 60 seconds after its last renewal (the broker's
 * {@code rocketmq.broker.rebalance.lockMaxLiveTime}). Every campaigner asks for the lock of queue 0
 * of topic {@code name}, as group {@code name}, under a client id of its own, every 500 ms; the one
 * granted it is the leader and renews it every 2 seconds. The leadership is sticky: a campaigner
 * joining never displaces the leader.
 *
 * <p>Handover: a leader closing (or its adapter closing) steps down and releases the lock, and
 * another campaigner is elected within about half a second. When a leader's process dies, the
 * lock stays until it expires: another campaigner is elected 58 to 60 seconds after the dead
 * leader's last renewal. A leader that cannot renew its lock for 30 seconds (its lease, half the
 * broker's lock life) steps down on its own, and {@link #isLeader()} turns false on time even if
 * the campaign's thread is held up.
 *
 * <p>Guarantees: at most one leader at a time while the broker keeps its lock table, measured with
 * the lease against the broker's 60 seconds. Not guaranteed: the broker keeps the locks in memory
 * only, so after a broker restart (or a failover to another master) a new leader may be elected
 * while a leader that cannot reach the broker still believes it leads, until its lease ends (at
 * most 30 seconds); a leader that can reach the broker learns at its next renewal, within 2
 * seconds. Callbacks run on the campaign's own thread.
 */
final class RocketMqLeadership implements Leadership {

    private static final Logger log = LoggerFactory.getLogger(RocketMqLeadership.class);
    private static final long TRY_MILLIS = 500;
    private static final long RENEW_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long REQUEST_MILLIS = 3_000;

    private final MessageQueue queue;
    private final Listener listener;
    private final RocketMqControlSupport support;
    private final Producers producers;
    private final Consumer<Leadership> onClose;
    private final String clientId;
    private final ScheduledExecutorService timer;
    private volatile boolean leader;
    private volatile long lockedAt;
    private volatile boolean closed;
    private volatile Thread timerThread;
    // campaign thread only
    private String broker;
    private boolean granted;
    private boolean outage;

    RocketMqLeadership(MessageQueue queue, Listener listener, RocketMqControlSupport support, Producers producers,
            RocketMqSettings settings, Consumer<Leadership> onClose) {
        this.queue = queue;
        this.listener = listener;
        this.support = support;
        this.producers = producers;
        this.onClose = onClose;
        this.clientId = Producers.instanceName(settings.instanceName()) + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = DaemonThreads.newThread("switchboard-leadership-" + queue.getTopic(), r);
            timerThread = t;
            return t;
        });
    }

    RocketMqLeadership start() {
        timer.scheduleWithFixedDelay(this::tick, 0, TRY_MILLIS, TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public boolean isLeader() {
        return leader && System.nanoTime() - lockedAt < LEASE_NANOS;
    }

    /** One round of the campaign: steps down when the lease ran out, asks for the lock when due. */
    private void tick() {
        try {
            if (closed) {
                return;
            }
            if (leader && System.nanoTime() - lockedAt >= LEASE_NANOS) {
                log.warn("Leadership '{}': the broker lock could not be renewed for {} s; stepping down", queue.getTopic(),
                        TimeUnit.NANOSECONDS.toSeconds(LEASE_NANOS));
                stepDown();
            }
            if (leader && System.nanoTime() - lockedAt < RENEW_NANOS) {
                return;
            }
            long sent = System.nanoTime();
            Boolean ours = lock();
            if (ours == null) {
                return;
            }
            if (ours) {
                granted = true;
                boolean elected;
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    lockedAt = sent;
                    elected = !leader;
                    leader = true;
                }
                if (elected) {
                    log.info("Leadership '{}': elected", queue.getTopic());
                    ControlNames.call(listener::elected, log, queue.getTopic(), "elected");
                }
            } else if (leader) {
                log.warn("Leadership '{}': the broker gave the lock to another campaigner (did the broker restart?); "
                        + "stepping down", queue.getTopic());
                stepDown();
            }
        } catch (RuntimeException e) {
            log.warn("Leadership '{}': campaign round failed", queue.getTopic(), e);
        }
    }

    /** True when the broker granted the lock, false when another holds it, null when the broker was not reached. */
    private Boolean lock() {
        LockBatchRequestBody body = new LockBatchRequestBody();
        body.setConsumerGroup(queue.getTopic());
        body.setClientId(clientId);
        body.setMqSet(Set.of(queue));
        body.setOnlyThisBroker(true);
        try {
            if (broker == null) {
                broker = support.masterOf(queue);
            }
            boolean ours = producers.api().lockBatchMQ(broker, body, REQUEST_MILLIS).contains(queue);
            if (outage) {
                log.info("Leadership '{}': reaching the broker again", queue.getTopic());
                outage = false;
            }
            return ours;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception e) {
            broker = null;
            if (!outage) {
                outage = true;
                log.warn("Leadership '{}': cannot reach the broker ({}); retrying every {} ms{}", queue.getTopic(),
                        e.toString(), TRY_MILLIS, leader ? ", leading for at most the rest of the 30 s lease" : "");
            }
            return null;
        }
    }

    private void stepDown() {
        synchronized (this) {
            if (!leader) {
                return;
            }
            leader = false;
        }
        log.info("Leadership '{}': revoked", queue.getTopic());
        ControlNames.call(listener::revoked, log, queue.getTopic(), "revoked");
    }

    /** Releases the lock (when this campaign ever held it) so that another is elected at once. */
    private void unlock() {
        if (!granted) {
            return;
        }
        UnlockBatchRequestBody body = new UnlockBatchRequestBody();
        body.setConsumerGroup(queue.getTopic());
        body.setClientId(clientId);
        body.setMqSet(Set.of(queue));
        body.setOnlyThisBroker(true);
        try {
            String address = broker != null ? broker : support.masterOf(queue);
            producers.api().unlockBatchMQ(address, body, REQUEST_MILLIS, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Leadership '{}': could not release the broker lock ({}); another campaigner is elected when it "
                    + "expires, within 60 s", queue.getTopic(), e.toString());
        }
    }

    /** Steps down (isLeader() is false when this returns), releases the lock and stops campaigning. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        onClose.accept(this);
        Runnable resign = () -> {
            stepDown();
            unlock();
        };
        if (Thread.currentThread() == timerThread) {
            resign.run();
        } else {
            try {
                timer.submit(resign).get(3 * REQUEST_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.warn("Leadership '{}': resigning did not finish: {}", queue.getTopic(), e.toString());
            }
        }
        leader = false;
        timer.shutdown();
    }

    @Override
    public String toString() {
        return "RocketMqLeadership[" + queue.getTopic() + (leader ? ", leader" : "") + "]";
    }
}
