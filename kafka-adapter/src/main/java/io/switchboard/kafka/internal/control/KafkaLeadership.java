package io.switchboard.kafka.internal.control;

import io.switchboard.spi.ControlNames;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.Leadership;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A campaign for leadership on Kafka through a <b>consumer group on a one-partition topic</b>:
 * every campaigner joins group {@code name} and subscribes to topic {@code name} (one partition,
 * never written to). The group coordinator assigns the partition to one member at a time; that
 * member leads. The cooperative-sticky assignor keeps the partition where it is when campaigners
 * join, and moves it only after its owner gave it up (it revokes in one rebalance and assigns in
 * the next). When the leader closes, it leaves the group and the partition moves at once; when its
 * process dies, the coordinator expires it after the session timeout ({@value #SESSION_MILLIS} ms).
 *
 * <p>A leader cut off from the coordinator does not hear that it was expired until it reconnects,
 * so it fences itself: while leading it asks the coordinator for its committed offset every
 * {@link KafkaControlSupport#PROBE_INTERVAL}, and when none was answered for two thirds of the
 * session timeout it steps down (before the coordinator can expire it and elect another), leaves
 * and campaigns again with a new consumer. Guaranteed: one leader at a time as the coordinator
 * sees it, and a leader that cannot reach it steps down before the coordinator moves the
 * partition, as long as the two clocks run at the same rate. Not guaranteed: a leader paused (a
 * long GC) for longer than the session timeout learns it only when it resumes; there is no fencing
 * token. Listener calls come from the campaign's own thread.
 */
final class KafkaLeadership implements Leadership {

    private static final long SESSION_MILLIS = 6_000;
    /** The group session timeout: Kafka's smallest allowed by default ({@code group.min.session.timeout.ms}). */
    static final Duration SESSION = Duration.ofMillis(SESSION_MILLIS);
    private static final long FENCE_NANOS = SESSION.toNanos() * 2 / 3;
    private static final Logger log = LoggerFactory.getLogger(KafkaLeadership.class);

    private final KafkaControlSupport support;
    private final String name;
    private final Listener listener;
    private final TopicPartition partition;
    private final AtomicBoolean leader = new AtomicBoolean();
    private final Thread thread;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean closed;
    /** When the coordinator last answered while leading; the campaign's thread only. */
    private long lastAnswer;
    private boolean down;

    KafkaLeadership(KafkaControlSupport support, String name, Listener listener) {
        this.support = support;
        this.name = name;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.partition = new TopicPartition(name, 0);
        this.thread = DaemonThreads.newThread(support.threadName("leadership-" + name), this::run);
        thread.start();
    }

    private void run() {
        while (!closed) {
            try {
                support.ensureTopic(name, false);
                KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(support.consumer(name));
                try {
                    consumer = c;
                    if (!closed) {
                        campaign(c);
                    }
                } finally {
                    consumer = null;
                    stepDown(closed ? "resigned" : "left the group");
                    // leaving the group moves the partition at once; a consumer cut off cannot say goodbye
                    c.close(Duration.ofSeconds(down ? 1 : 5));
                }
                if (down) {
                    down = false;
                    log.info("Leadership '{}' reaches Kafka at {} again", name, support.servers());
                }
            } catch (WakeupException e) {
                return; // closing
            } catch (KafkaException | io.switchboard.SwitchboardException e) {
                if (!down && !closed) {
                    down = true;
                    log.warn("Leadership '{}' on Kafka at {}: cannot campaign: {}; retrying every {} ms", name, support.servers(),
                            e.toString(), KafkaControlSupport.RETRY.toMillis());
                }
            }
            if (!closed) {
                java.util.concurrent.locks.LockSupport.parkNanos(KafkaControlSupport.RETRY.toNanos());
            }
        }
    }

    /** Polls the group until closed, or until this leader lost touch with the coordinator. */
    private void campaign(KafkaConsumer<byte[], byte[]> c) {
        c.subscribe(List.of(name), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (partitions.contains(partition)) {
                    lastAnswer = System.nanoTime();
                    elect();
                }
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                if (partitions.contains(partition)) {
                    stepDown("the group moved the partition");
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                if (partitions.contains(partition)) {
                    stepDown("the group expired this member");
                }
            }
        });
        long nextProbe = 0;
        while (!closed) {
            c.poll(Duration.ofMillis(500));
            long now = System.nanoTime();
            if (leader.get() && now - nextProbe >= 0) {
                nextProbe = now + KafkaControlSupport.PROBE_INTERVAL.toNanos();
                try {
                    c.committed(Set.of(partition), KafkaControlSupport.PROBE_TIMEOUT);
                    lastAnswer = System.nanoTime();
                } catch (org.apache.kafka.common.errors.RetriableException e) {
                    // no answer: judged below
                }
                if (System.nanoTime() - lastAnswer > FENCE_NANOS) {
                    log.warn("Leadership '{}': no answer from the group coordinator at {} for {} ms; stepping down before the "
                            + "group can elect another, and campaigning again", name, support.servers(), FENCE_NANOS / 1_000_000);
                    stepDown("lost touch with the coordinator");
                    down = true;
                    return;
                }
            }
        }
    }

    private void elect() {
        if (!closed && leader.compareAndSet(false, true)) {
            log.info("Elected leader of '{}' on Kafka at {}", name, support.servers());
            ControlNames.call(listener::elected, log, name, "elected");
        }
    }

    private void stepDown(String why) {
        if (leader.compareAndSet(true, false)) {
            log.info("No longer leader of '{}' on Kafka at {}: {}", name, support.servers(), why);
            ControlNames.call(listener::revoked, log, name, "revoked");
        }
    }


    @Override
    public boolean isLeader() {
        return leader.get();
    }

    /** Resigns (leaving the group, so that the partition moves at once) and stops campaigning. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stepDown("resigned");
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        support.forget(this);
    }

    @Override
    public String toString() {
        return "KafkaLeadership[" + name + (leader.get() ? ", leader" : "") + " at " + support.servers() + "]";
    }
}
