package io.switchboard.rabbit.internal.control;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.spi.ControlNames;
import io.switchboard.spi.Leadership;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A campaign for leadership on RabbitMQ through an <b>exclusive queue used as a lock</b>: the
 * campaigner declares a non-durable exclusive queue named as the leadership on a connection of its
 * own. The broker lets one connection at a time own it: the declare succeeds for the leader and
 * fails with RESOURCE_LOCKED (405) for everyone else, who tries again every {@value #RETRY_MILLIS}
 * ms. The broker deletes the queue when its owner's connection ends (closed, process killed, or
 * its heartbeat missed), and the next campaigner's declare succeeds.
 *
 * <p>Guarantees: at most one connection owns the queue at any time, as the broker sees it. Not
 * guaranteed: a leader cut off from the broker learns it only when its own heartbeat times out
 * (the connection asks for {@value RabbitControlSupport#HEARTBEAT_SECONDS} s, so within about twice
 * that), while the broker may already have elected another: for that short overlap two processes
 * may believe they lead. There is no fencing token. On a lost connection {@link #isLeader()} turns
 * false at once, then {@code revoked()} is called, then the campaign resumes on a new connection.
 * Listener calls come from the control scheduler's thread, never an amqp-client thread.
 */
final class RabbitLeadership implements Leadership {

    static final long RETRY_MILLIS = 750;
    private static final Logger log = LoggerFactory.getLogger(RabbitLeadership.class);

    private final RabbitControlSupport support;
    private final String name;
    private final Listener listener;
    private final Object lock = new Object();
    private Connection connection;
    private volatile boolean leader;
    private volatile boolean closed;
    /** Set while an outage is on (logged once); scheduler thread only. */
    private boolean down;

    RabbitLeadership(RabbitControlSupport support, String name, Listener listener) {
        this.support = support;
        this.name = name;
        this.listener = java.util.Objects.requireNonNull(listener, "listener");
        support.later(this::campaign, Duration.ZERO);
    }

    /**
     * On the scheduler: one attempt to take the lock, then the next one is scheduled unless it
     * succeeded. There is exactly one chain of attempts while not leader and not closed.
     */
    private void campaign() {
        if (closed) {
            return;
        }
        Connection c = null;
        try {
            synchronized (lock) {
                c = connection;
            }
            if (c == null || !c.isOpen()) {
                Connection fresh = support.connect("leader-" + name, null);
                fresh.addShutdownListener(cause -> lost(fresh, cause));
                synchronized (lock) {
                    if (closed) {
                        fresh.abort(2_000);
                        return;
                    }
                    if (!fresh.isOpen()) {
                        throw new IOException("the connection closed as it opened");
                    }
                    connection = fresh;
                }
                c = fresh;
            }
            try {
                c.createChannel().queueDeclare(name, false, true, false, null);
            } finally {
                if (down && c.isOpen()) {
                    down = false;
                    log.info("Leadership '{}' is connected to RabbitMQ at {} again", name, support.printableUri());
                }
            }
            synchronized (lock) {
                if (closed) {
                    return;
                }
                if (connection != c) {
                    support.later(this::campaign, support.retry); // lost meanwhile: lost() saw no leader
                    return;
                }
                leader = true;
            }
            log.info("Elected leader of '{}' on RabbitMQ at {}", name, support.printableUri());
            ControlNames.call(listener::elected, log, name, "elected");
        } catch (IOException | TimeoutException | RuntimeException e) {
            if (c != null && c.isOpen() && AmqpErrors.replyCode(e) == AmqpErrors.RESOURCE_LOCKED) {
                support.later(this::campaign, Duration.ofMillis(RETRY_MILLIS)); // another process leads
                return;
            }
            if (!down) {
                down = true;
                log.warn("Leadership '{}' on RabbitMQ at {}: cannot campaign: {}{}; retrying every {}", name,
                        support.printableUri(), AmqpErrors.describe(e), AmqpErrors.hint(e), support.retry);
            }
            support.later(this::campaign, support.retry);
        }
    }

    /** On the connection's thread: steps down at once; revoked() and the next campaign run on the scheduler. */
    private void lost(Connection c, ShutdownSignalException cause) {
        boolean was;
        synchronized (lock) {
            if (closed || connection != c) {
                return;
            }
            connection = null;
            was = leader;
            leader = false;
        }
        if (was) {
            log.warn("Leadership '{}': connection to RabbitMQ at {} lost ({}); no longer leader, campaigning again", name,
                    support.printableUri(), AmqpErrors.describe(cause));
            support.later(() -> ControlNames.call(listener::revoked, log, name, "revoked"), Duration.ZERO);
            support.later(this::campaign, support.retry); // not leader: the chain of attempts was not running
        }
    }


    @Override
    public boolean isLeader() {
        return leader;
    }

    /** Resigns by closing the connection (the broker deletes the queue) and stops campaigning. Idempotent. */
    @Override
    public void close() {
        boolean was;
        Connection c;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            was = leader;
            leader = false;
            c = connection;
            connection = null;
        }
        if (c != null) {
            try {
                c.close(2_000);
            } catch (IOException | RuntimeException e) {
                c.abort(2_000);
            }
        }
        if (was) {
            log.info("Resigned the leadership of '{}'", name);
            support.later(() -> ControlNames.call(listener::revoked, log, name, "revoked"), Duration.ZERO);
        }
        support.forget(this);
    }

    @Override
    public String toString() {
        return "RabbitLeadership[" + name + (leader ? ", leader" : "") + " on " + support.printableUri() + "]";
    }
}
