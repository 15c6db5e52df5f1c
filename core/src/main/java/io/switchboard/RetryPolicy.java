package io.switchboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How often and how fast a failed handler is retried before the message is dead-lettered.
 * Retries run in-process on the handler's own lane, so per-key order holds while a message is
 * retried. A wait of {@link #viaBroker(Duration)} or longer instead goes through the broker (non-blocking
 * retry): the message is published, delayed by the wait, to the group's retry destination and acknowledged,
 * so the lane goes on with the next messages; later messages of its key then overtake it.
 *
 * <p>Not every failure is worth another attempt: a message that fails validation fails the same way every time.
 * {@link #notRetrying}, {@link #retryingOnly} and {@link #retryingWhen} say which failures are retried (the
 * {@link Exceptions} of the policy); a failure they do not retry goes to the dead-letter destination at once, with
 * reason {@code non-retryable} in {@link Envelope#DEAD_LETTER_REASON}, as Spring Kafka's
 * {@code addNotRetryableExceptions} and Spring Cloud Stream's {@code retryable-exceptions} do:
 *
 * <pre>{@code
 * RetryPolicy.DEFAULT.notRetrying(ValidationException.class, JsonProcessingException.class)
 * RetryPolicy.exponential(5, Duration.ofMillis(200), Duration.ofSeconds(5)).retryingOnly(TimeoutException.class)
 * }</pre>
 *
 * Immutable; validated on construction.
 *
 * @param maxAttempts attempts in all, the first included; at least 1
 * @param initialBackoff wait before the second attempt
 * @param multiplier growth of the wait per attempt; at least 1.0
 * @param maxBackoff upper bound of the wait
 * @param jitter random spread of each wait, 0.0 to 1.0 (0.2 = plus or minus 20%)
 * @param brokerSideFrom waits this long or longer go through the broker's delayed delivery; null: every wait in-process
 * @param exceptions which failures are retried; {@link Exceptions#ALL} (every one) when null
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter,
        Duration brokerSideFrom, Exceptions exceptions) {

    /** Three attempts, 100 ms doubling up to 2 s, 20% jitter. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofMillis(100), 2.0, Duration.ofSeconds(2), 0.2, null);

    /** No retry: the first failure dead-letters the message. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, 1.0, Duration.ZERO, 0.0, null);

    /**
     * Validates the components.
     *
     * @param maxAttempts attempts in all, the first included; at least 1
     * @param initialBackoff the wait before the second attempt
     * @param multiplier how much the wait grows per attempt; at least 1
     * @param maxBackoff the longest wait
     * @param jitter the random spread of each wait, 0 to 1
     * @param brokerSideFrom the shortest wait that goes through the broker, or null for none
     * @param exceptions which failures are retried, or null for every one
     */
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new ConfigurationException("RetryPolicy.maxAttempts must be at least 1 but was " + maxAttempts);
        }
        if (initialBackoff == null || initialBackoff.isNegative()) {
            throw new ConfigurationException("RetryPolicy.initialBackoff must be zero or positive but was " + initialBackoff);
        }
        if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new ConfigurationException("RetryPolicy.maxBackoff must be at least initialBackoff (" + initialBackoff
                    + ") but was " + maxBackoff);
        }
        if (multiplier < 1.0) {
            throw new ConfigurationException("RetryPolicy.multiplier must be at least 1.0 but was " + multiplier);
        }
        if (jitter < 0.0 || jitter > 1.0) {
            throw new ConfigurationException("RetryPolicy.jitter must be between 0.0 and 1.0 but was " + jitter);
        }
        if (brokerSideFrom != null && (brokerSideFrom.isNegative() || brokerSideFrom.isZero())) {
            throw new ConfigurationException("RetryPolicy.brokerSideFrom must be positive but was " + brokerSideFrom
                    + "; give the shortest wait that should go through the broker, such as 10s");
        }
        if (exceptions == null) {
            exceptions = Exceptions.ALL;
        }
    }

    /**
     * Every failure retried.
     *
     * @param maxAttempts attempts in all, the first included; at least 1
     * @param initialBackoff the wait before the second attempt
     * @param multiplier how much the wait grows per attempt; at least 1
     * @param maxBackoff the longest wait
     * @param jitter the random spread of each wait, 0 to 1
     * @param brokerSideFrom the shortest wait that goes through the broker, or null for none
     */
    public RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter,
            Duration brokerSideFrom) {
        this(maxAttempts, initialBackoff, multiplier, maxBackoff, jitter, brokerSideFrom, Exceptions.ALL);
    }

    /**
     * Every wait in-process (no broker-side retry).
     *
     * @param maxAttempts attempts in all, the first included; at least 1
     * @param initialBackoff the wait before the second attempt
     * @param multiplier how much the wait grows per attempt; at least 1
     * @param maxBackoff the longest wait
     * @param jitter the random spread of each wait, 0 to 1
     */
    public RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter) {
        this(maxAttempts, initialBackoff, multiplier, maxBackoff, jitter, null, Exceptions.ALL);
    }

    /**
     * {@return this policy with waits of {@code from} or longer going through the broker} Such a retry publishes the
     * message, delayed by the wait, to the group's retry destination (the broker's delayed delivery; every built-in
     * adapter has it) and acknowledges the original: nothing waits in the application, the lane goes on, and a
     * restart loses no retry. The attempt count travels with the message. Per-key order does not hold for it.
     *
     * @param from the shortest wait that goes through the broker, such as {@code Duration.ofSeconds(10)}
     */
    public RetryPolicy viaBroker(Duration from) {
        return new RetryPolicy(maxAttempts, initialBackoff, multiplier, maxBackoff, jitter, from, exceptions);
    }

    /**
     * {@return this policy with failures of these types (and their subtypes) not retried} They go to the
     * dead-letter destination at once, reason {@code non-retryable}. Adds to the types given before. A type is matched
     * on the exception the handler threw and on its causes: see {@link Exceptions} for which match wins.
     *
     * @param types exception types no attempt can mend, such as a validation failure
     */
    @SafeVarargs
    public final RetryPolicy notRetrying(Class<? extends Throwable>... types) {
        return with(exceptions.with(types, false, null));
    }

    /**
     * {@return this policy retrying only failures of these types (and their subtypes)} Every other failure goes to
     * the dead-letter destination at once, reason {@code non-retryable}. Adds to the types given before. A type is
     * matched on the exception the handler threw and on its causes: see {@link Exceptions} for which match wins.
     *
     * @param types exception types another attempt may mend, such as a time-out
     */
    @SafeVarargs
    public final RetryPolicy retryingOnly(Class<? extends Throwable>... types) {
        return with(exceptions.with(types, true, null));
    }

    /**
     * {@return this policy retrying a failure only when {@code test} also says so} The test sees the exception the
     * handler threw (walk {@link Throwable#getCause()} for its causes) after the types of {@link #notRetrying} and
     * {@link #retryingOnly} found it retryable, for what a type does not tell, such as an HTTP status in the
     * exception. Several tests must all say yes. A test that throws counts as yes (the failure is retried, and the
     * test's exception logged).
     *
     * @param test true when another attempt may mend the failure
     */
    public RetryPolicy retryingWhen(Predicate<? super Throwable> test) {
        return with(exceptions.with(null, true, Objects.requireNonNull(test, "test")));
    }

    /**
     * {@return true when a handler that threw {@code failure} is to be tried again (attempts allowing)} Allocates
     * nothing once the failure's types have been seen.
     *
     * @param failure what the handler threw
     */
    public boolean retries(Throwable failure) {
        return exceptions.retries(failure);
    }

    private RetryPolicy with(Exceptions next) {
        return new RetryPolicy(maxAttempts, initialBackoff, multiplier, maxBackoff, jitter, brokerSideFrom, next);
    }

    /**
     * {@return true when a wait this long goes through the broker}
     *
     * @param wait the wait before the next attempt
     */
    public boolean brokerSide(Duration wait) {
        return brokerSideFrom != null && wait.compareTo(brokerSideFrom) >= 0;
    }

    /**
     * Exponential backoff: {@code maxAttempts} attempts, waits from {@code initial} doubling up to {@code max}, 20% jitter.
     *
     * @param maxAttempts attempts in all, the first included
     * @param initial the first wait
     * @param max the longest wait
     * @return the policy
     */
    public static RetryPolicy exponential(int maxAttempts, Duration initial, Duration max) {
        return new RetryPolicy(maxAttempts, initial, 2.0, max, 0.2, null);
    }

    /**
     * Fixed wait between attempts, no jitter.
     *
     * @param maxAttempts attempts in all, the first included
     * @param backoff the wait between attempts
     * @return the policy
     */
    public static RetryPolicy fixed(int maxAttempts, Duration backoff) {
        return new RetryPolicy(maxAttempts, backoff, 1.0, backoff, 0.0, null);
    }

    /**
     * {@return the wait after the given failed attempt (1-based), jitter applied}
     *
     * @param failedAttempt the attempt that failed, from 1
     */
    public Duration backoffAfter(int failedAttempt) {
        if (initialBackoff.isZero()) {
            return Duration.ZERO;
        }
        double base = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
        double capped = Math.min(base, maxBackoff.toNanos());
        double spread = jitter == 0.0 ? 0.0 : capped * jitter * (ThreadLocalRandom.current().nextDouble() * 2 - 1);
        return Duration.ofNanos((long) Math.max(0, capped + spread));
    }

    /**
     * Which failures a {@link RetryPolicy} retries: non-retryable types, retryable types and tests. Immutable.
     *
     * <p>The rule, as Spring's {@code BinaryExceptionClassifier} with {@code traverseCauses}: the exception the handler
     * threw is looked at first, then its cause, then the cause's cause, and so on; the first of them whose type is one
     * of the listed types, or a subtype of one, decides (the nearest in the cause chain wins). For that exception the
     * most specific listed type decides: its own class, else its nearest listed superclass; so {@code notRetrying(IllegalArgumentException.class).retryingOnly(RuntimeException.class)} does not
     * retry a {@code NumberFormatException} and retries an {@code IllegalStateException}. When no exception in the
     * chain is of a listed type, the failure is retried unless {@link RetryPolicy#retryingOnly} types were given. A
     * failure found retryable so far is retried only when every {@link RetryPolicy#retryingWhen} test says so too.
     * A type cannot be both retryable and not.
     */
    public static final class Exceptions {

        /** Every failure retried: no types, no tests. */
        public static final Exceptions ALL = new Exceptions(Set.of(), Set.of(), List.of());

        private static final int MAX_CAUSES = 64; // a cause chain may loop; Throwable only guards against itself
        private static final int MAX_CACHED = 1024;
        private static final Logger log = LoggerFactory.getLogger(RetryPolicy.class);
        private static final byte RETRY = 1;
        private static final byte NO_RETRY = 0;
        private static final byte UNLISTED = -1;

        private final Set<Class<? extends Throwable>> notRetryable;
        private final Set<Class<? extends Throwable>> retryable;
        private final List<Predicate<? super Throwable>> tests;
        private final ConcurrentHashMap<Class<?>, Byte> verdicts = new ConcurrentHashMap<>();

        private Exceptions(Set<Class<? extends Throwable>> notRetryable, Set<Class<? extends Throwable>> retryable,
                List<Predicate<? super Throwable>> tests) {
            this.notRetryable = notRetryable;
            this.retryable = retryable;
            this.tests = tests;
        }

        /** {@return the types not retried, with their subtypes} */
        public Set<Class<? extends Throwable>> notRetryable() {
            return notRetryable;
        }

        /** {@return the types retried, with their subtypes; when not empty, other failures are not retried} */
        public Set<Class<? extends Throwable>> retryable() {
            return retryable;
        }

        /** {@return the tests a retryable failure must also pass} */
        public List<Predicate<? super Throwable>> tests() {
            return tests;
        }

        /** {@return true when every failure is retried} */
        public boolean all() {
            return notRetryable.isEmpty() && retryable.isEmpty() && tests.isEmpty();
        }

        Exceptions with(Class<? extends Throwable>[] types, boolean retry, Predicate<? super Throwable> test) {
            if (test != null) {
                List<Predicate<? super Throwable>> more = new ArrayList<>(tests);
                more.add(test);
                return new Exceptions(notRetryable, retryable, List.copyOf(more));
            }
            String method = retry ? "retryingOnly" : "notRetrying";
            if (types == null || types.length == 0) {
                throw new ConfigurationException("RetryPolicy." + method + " needs at least one exception type, such as "
                        + method + "(" + (retry ? "TimeoutException" : "IllegalArgumentException") + ".class)");
            }
            Set<Class<? extends Throwable>> mine = new LinkedHashSet<>(retry ? retryable : notRetryable);
            Set<Class<? extends Throwable>> other = retry ? notRetryable : retryable;
            for (Class<? extends Throwable> type : types) {
                if (type == null) {
                    throw new ConfigurationException("RetryPolicy." + method + " was given a null type among "
                            + Arrays.toString(types) + "; give exception classes only");
                }
                if (other.contains(type)) {
                    throw new ConfigurationException(type.getName() + " cannot be both retryable and not retryable in a"
                            + " RetryPolicy; list it in notRetrying or in retryingOnly, not in both");
                }
                mine.add(type);
            }
            Set<Class<? extends Throwable>> kept = Collections.unmodifiableSet(mine);
            return retry ? new Exceptions(notRetryable, kept, tests) : new Exceptions(kept, retryable, tests);
        }

        boolean retries(Throwable failure) {
            if (this == ALL || failure == null) {
                return true;
            }
            byte verdict = UNLISTED;
            if (!notRetryable.isEmpty() || !retryable.isEmpty()) {
                Throwable t = failure;
                for (int depth = 0; t != null && depth < MAX_CAUSES && verdict == UNLISTED; depth++) {
                    verdict = verdict(t.getClass());
                    t = t.getCause();
                }
            }
            if (verdict == NO_RETRY || verdict == UNLISTED && !retryable.isEmpty()) {
                return false;
            }
            for (int i = 0; i < tests.size(); i++) {
                try {
                    if (!tests.get(i).test(failure)) {
                        return false;
                    }
                } catch (RuntimeException e) {
                    log.warn("A RetryPolicy.retryingWhen test threw on {}; retrying the failure as if it had said yes."
                            + " Make the test return false instead of throwing", failure.getClass().getName(), e);
                }
            }
            return true;
        }

        /** The verdict of the most specific listed type of {@code type}, cached per class. */
        private byte verdict(Class<?> type) {
            Byte known = verdicts.get(type);
            if (known != null) {
                return known;
            }
            byte v = listed(type);
            if (verdicts.size() < MAX_CACHED) {
                verdicts.putIfAbsent(type, v);
            }
            return v;
        }

        private byte listed(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                byte v = own(c);
                if (v != UNLISTED) {
                    return v;
                }
            }
            return UNLISTED;
        }

        private byte own(Class<?> c) {
            return notRetryable.contains(c) ? NO_RETRY : retryable.contains(c) ? RETRY : UNLISTED;
        }

        /** Equal when the same types and the same tests (by identity) are listed. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Exceptions e && notRetryable.equals(e.notRetryable) && retryable.equals(e.retryable)
                    && tests.equals(e.tests);
        }

        @Override
        public int hashCode() {
            return Objects.hash(notRetryable, retryable, tests);
        }

        @Override
        public String toString() {
            return all() ? "all" : "notRetryable=" + names(notRetryable) + ", retryable=" + names(retryable)
                    + ", tests=" + tests.size();
        }

        private static List<String> names(Set<Class<? extends Throwable>> types) {
            List<String> out = new ArrayList<>();
            types.forEach(t -> out.add(t.getName()));
            return out;
        }
    }
}
