package io.switchboard.rocketmq.internal.publish;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An asynchronous send's answer, the send retried after a transient failure: a connection refused, reset or timed
 * out, or a full request queue ({@link SendFailures#transientCause}), as rocketmq-client's own asynchronous retry
 * would, which the adapter turns off ({@code retryTimesWhenSendAsyncFailed} 0) since it calls no hook and counts
 * nothing another thread could read: at most {@value #MAX_RETRIES} times, with the same arguments (so to the same
 * queue when one was chosen, and a key's order stays), and only while the send time-out that began with the first
 * attempt has time left. Each retry is told to the retry listener; the caller gets the last attempt's outcome.
 * Nothing more per send than the time it started.
 */
public abstract class RetriedSend implements SendCallback {

    /** Retries of a send after a transient failure: rocketmq-client's default for asynchronous sends. */
    public static final int MAX_RETRIES = 2;

    private static final Logger log = LoggerFactory.getLogger(RetriedSend.class);

    private final long deadline;
    private final Consumer<Throwable> retried;
    private int retries;

    /**
     * @param timeout the send time-out, for all attempts together
     * @param retried told each retry's cause (on the client's callback thread: must not block)
     */
    protected RetriedSend(Duration timeout, Consumer<Throwable> retried) {
        this.deadline = System.nanoTime() + timeout.toNanos();
        this.retried = retried;
    }

    /**
     * Hands the send to the client, with this as its callback.
     *
     * @param timeoutMillis how long the attempt may take
     * @throws Exception when the client refuses it at once
     */
    protected abstract void send(long timeoutMillis) throws Exception;

    /**
     * The send failed for good.
     *
     * @param error the failure
     */
    protected abstract void failed(Throwable error);

    /**
     * Starts the first attempt with the whole time-out.
     *
     * @throws Exception when the client refuses it at once (this callback is then not called)
     */
    public final void start() throws Exception {
        send(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }

    @Override
    public final void onException(Throwable error) {
        Throwable cause = retries < MAX_RETRIES ? SendFailures.transientCause(error) : null;
        long left = cause == null ? 0 : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left > 0) {
            retries++;
            try {
                retried.accept(cause);
            } catch (RuntimeException e) {
                log.debug("Telling a retried RocketMQ send failed", e);
            }
            try {
                send(left);
                return;
            } catch (Exception e) { // refused at once (the client shut down, say): the caller gets the first failure
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                log.debug("Retrying a RocketMQ send failed at once", e);
            }
        }
        failed(error);
    }
}
