package io.switchboard.rabbit.internal.control;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlSupportBase;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.Leadership;
import java.io.IOException;
import java.time.Duration;
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
public final class RabbitControlSupport extends ControlSupportBase {

    static final int HEARTBEAT_SECONDS = 5;

    final RabbitAdapter adapter;
    final Duration retry;
    final Duration publishTimeout;
    private final ConnectionFactory factory;
    private final String connectionName;
    /** Connects, reconnects, campaigns and calls the leadership listeners: never an amqp-client thread. */
    final ScheduledExecutorService scheduler;

    public RabbitControlSupport(RabbitAdapter adapter, RabbitSettings settings, ConnectionFactory adapterFactory) {
        this.adapter = adapter;
        this.retry = settings.recoveryInterval;
        this.publishTimeout = settings.publishTimeout;
        this.connectionName = settings.connectionName;
        this.factory = adapterFactory.clone();
        factory.setAutomaticRecoveryEnabled(false);
        factory.setTopologyRecoveryEnabled(false);
        factory.setRequestedHeartbeat(HEARTBEAT_SECONDS);
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.numbered(connectionName + "-control"));
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // retries and timeouts end with close()
        scheduler.setRemoveOnCancelPolicy(true);
        this.scheduler = scheduler;
    }

    @Override
    protected ControlLog newLog(String name) {
        return new RabbitControlLog(this, name);
    }

    @Override
    protected Leadership newLeadership(String name, Leadership.Listener listener) {
        return new RabbitLeadership(this, name, listener);
    }

    @Override
    protected SwitchboardClosedException closedError(String what) {
        return adapter.closedError(what);
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

    String printableUri() {
        return adapter.printableUri();
    }

    /** Closes every log and leadership opened here, then the scheduler (letting queued callbacks run). Idempotent. */
    public void close() {
        closeOpened();
        scheduler.shutdown();
    }
}
