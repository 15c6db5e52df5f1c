package io.switchboard.internal.idempotency;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.IdempotencyStore;
import io.switchboard.spi.IdempotencyStore.Claim;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims a message id in an {@link IdempotencyStore} for an exactly-once delivery, waiting out
 * {@link Claim#BUSY} answers: another delivery holds the id and may still fail, release it or die,
 * so a BUSY record is never acknowledged. It claims again with backoff (10 ms doubling to 500 ms)
 * until the answer is CLAIMED (the holder released, or its stale claim was taken over) or DONE,
 * for at most the busy wait of property {@value #PROPERTY} (default 30 s); after that, or when the
 * subscription closes, the answer stays BUSY and the caller hands the record back to the broker.
 * Runs on the thread that runs the handler (a lane, or an adapter delivery thread that lets
 * handlers block).
 */
public final class ClaimWait {

    private static final Logger log = LoggerFactory.getLogger(ClaimWait.class);

    /** The property bounding the wait per delivery (subscription properties first, then the instance's). */
    public static final String PROPERTY = "switchboard.exactly-once.busy-wait";
    /** The default bound. */
    public static final Duration DEFAULT = Duration.ofSeconds(30);

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private ClaimWait() {}

    /** The busy wait of a subscription: its own property first, then the instance's, then 30 s. */
    public static Duration bound(Map<String, String> subscriptionProperties, BrokerConfig config) {
        String value = subscriptionProperties.get(PROPERTY);
        Duration bound;
        if (value == null) {
            bound = config.getDuration(PROPERTY, DEFAULT);
        } else {
            try {
                bound = BrokerConfig.parseDuration(value);
            } catch (RuntimeException e) {
                throw new ConfigurationException("Subscription property '" + PROPERTY + "' is '" + value
                        + "', not a duration; use one such as 30s or 2m", e);
            }
        }
        if (bound.isNegative()) {
            throw new ConfigurationException("Property '" + PROPERTY + "' of broker instance '" + config.instanceName() + "' is "
                    + bound + " but must not be negative; use one such as 30s (0 hands a busy record back at once)");
        }
        return bound;
    }

    /**
     * Claims {@code id}; on BUSY claims again with backoff until CLAIMED or DONE, for at most
     * {@code maxWaitNanos} and while {@code giveUp} is false. Returns BUSY when it gave up.
     */
    public static Claim claim(IdempotencyStore store, String scope, String id, long maxWaitNanos, BooleanSupplier giveUp) {
        Claim claim = store.claim(scope, id);
        if (claim != Claim.BUSY) {
            return claim;
        }
        long start = System.nanoTime();
        long pause = FIRST_PAUSE_NANOS;
        log.debug("Message {} in '{}' is being processed by another delivery; waiting for it to finish", id, scope);
        while (!giveUp.getAsBoolean()) {
            long left = maxWaitNanos - (System.nanoTime() - start);
            if (left <= 0) {
                break;
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
            claim = store.claim(scope, id);
            if (claim != Claim.BUSY) {
                log.debug("Message {} in '{}' is {} after {} ms of waiting", id, scope, claim,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                return claim;
            }
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
        log.info("Message {} in '{}' is still being processed by another delivery after {} ms; it goes back to the broker for "
                + "redelivery (raise {} if the holder's claim timeout is longer)", id, scope,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), PROPERTY);
        return Claim.BUSY;
    }

    /**
     * Thrown by a handler wrapper (the routing layer's deduplication) whose claim stayed BUSY: the
     * subscription hands the record back to the broker without counting a failed attempt.
     */
    public static final class StillBusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** For message {@code id} in {@code scope}. */
        public StillBusyException(String scope, String id) {
            super("Message " + id + " in '" + scope + "' is still being processed by another delivery", null, false, false);
        }
    }
}
