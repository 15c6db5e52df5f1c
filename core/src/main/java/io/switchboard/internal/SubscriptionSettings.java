package io.switchboard.internal;

import io.switchboard.RetryPolicy;
import io.switchboard.internal.idempotency.ClaimWait;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.IdempotencyStore;
import java.time.Duration;

/**
 * Everything a subscription was built with.
 *
 * @param instance broker instance name
 * @param spec what the raw consumer is asked for
 * @param concurrency handler lanes
 * @param retry retry policy
 * @param deadLetter dead-letter destination
 * @param drainTimeout how long close waits for handlers in flight
 * @param idempotencyStore store for exactly-once deduplication
 * @param telemetry meters and observations, or {@link Telemetry#NONE}
 * @param dispatch where the handler runs
 * @param busyWait how long an exactly-once delivery waits for an id another delivery holds ({@link ClaimWait})
 */
record SubscriptionSettings(
        String instance, ConsumerSpec spec, int concurrency, RetryPolicy retry, String deadLetter, Duration drainTimeout,
        IdempotencyStore idempotencyStore, Telemetry telemetry, Dispatch dispatch,
        Duration busyWait) {}
