package io.switchboard.rabbit.internal;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlNames;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.Leadership;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The fleet control plane's primitives on RabbitMQ: a {@link RabbitControlLog} (a stream queue)
 * per log and a {@link RabbitLeadership} (an exclusive queue held as a lock) per campaign. Each has
 * its own connection, apart from the data path's, made from the adapter's factory (URI,
 * credentials, TLS) without amqp-client's automatic recovery: each reconnects itself on this
 * support's scheduler thread, so that it can resume a stream at an offset and campaign again
 * instead of re-declaring what it held. The connections ask for a {@value #HEARTBEAT_SECONDS} s
 * heartbeat, so that a partitioned process notices within about twice that.
 */
final class RabbitControlSupport implements ControlSupport {

    static final int HEARTBEAT_SECONDS = 5;

    final RabbitAdapter adapter;
    final Duration retry;
    final Duration publishTimeout;
    private final ConnectionFactory factory;
    private final String connectionName;
    /** Connects, reconnects, campaigns and calls the leadership listeners: never an amqp-client thread. */
    final ScheduledExecutorService scheduler;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    RabbitControlSupport(RabbitAdapter adapter, RabbitSettings settings, ConnectionFactory adapterFactory) {
        this.adapter = adapter;
        this.retry = settings.recoveryInterval;
        this.publishTimeout = settings.publishTimeout;
        this.connectionName = settings.connectionName;
        this.factory = adapterFactory.clone();
        factory.setAutomaticRecoveryEnabled(false);
        factory.setTopologyRecoveryEnabled(false);
        factory.setRequestedHeartbeat(HEARTBEAT_SECONDS);
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, RabbitAdapter.daemon(connectionName + "-control"));
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // retries and timeouts end with close()
        scheduler.setRemoveOnCancelPolicy(true);
        this.scheduler = scheduler;
    }

    @Override
    public ControlLog openLog(String name) {
        return track(new RabbitControlLog(this, checked(name, "log")));
    }

    @Override
    public Leadership campaign(String name, Leadership.Listener listener) {
        return track(new RabbitLeadership(this, checked(name, "leadership"), listener));
    }

    private <C extends AutoCloseable> C track(C c) {
        open.add(c);
        if (closed) {
            close();
        }
        return c;
    }

    private String checked(String name, String what) {
        if (closed) {
            throw adapter.closedError("control " + what + " '" + name + "'");
        }
        return ControlNames.check(name, what);
    }

    /** A new connection named after the adapter's, with its consumers on {@code consumers} (or amqp-client's pool). */
    Connection connect(String suffix, ExecutorService consumers) throws IOException, TimeoutException {
        String name = connectionName + "-control-" + suffix;
        return adapter.newConnection(factory, consumers, name);
    }

    /** Runs {@code work} on the scheduler after {@code delay}, unless this support is closed. */
    void later(Runnable work, Duration delay) {
        if (!scheduler.isShutdown()) {
            try {
                scheduler.schedule(work, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing: nothing left to retry
            }
        }
    }

    void forget(AutoCloseable c) {
        open.remove(c);
    }

    String printableUri() {
        return adapter.printableUri();
    }

    /** Closes every log and leadership opened here, then the scheduler (letting queued callbacks run). Idempotent. */
    void close() {
        closed = true;
        for (AutoCloseable c : List.copyOf(open)) {
            try {
                c.close();
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(RabbitControlSupport.class).debug("Closing {}: {}", c, e.toString());
            }
        }
        scheduler.shutdown();
    }
}
