package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Retry classification" cases ({@link RetryPolicy#notRetrying}, {@link RetryPolicy#retryingOnly}):
 * which handler failures are retried and which go to the dead-letter destination at once, with reason
 * {@code non-retryable}; {@link BrokerContract} runs them as a nested group.
 */
abstract class RetryClassificationCases extends ContractCases {

    private static final RetryPolicy THREE = RetryPolicy.fixed(3, Duration.ofMillis(20));

    RetryClassificationCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("a non-retryable failure is attempted once and dead-lettered with reason non-retryable")
    void nonRetryableDeadLetteredAtOnce() {
        Run run = run(THREE.notRetrying(IllegalArgumentException.class),
                payload -> new IllegalArgumentException("order " + payload + " has no lines"), "invalid");
        Message<String> dl = run.deadLetter("invalid");
        assertThat(run.attemptsOf("invalid")).isEqualTo(1);
        assertThat(dl.headers())
                .containsEntry(Envelope.DEAD_LETTER_REASON, "non-retryable")
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "1")
                .containsEntry(Envelope.ERROR_TYPE, IllegalArgumentException.class.getName())
                .containsEntry(Envelope.DEAD_LETTER_GROUP, "g");
        assertThat(dl.headers().get(Envelope.ERROR_MESSAGE)).isEqualTo("order invalid has no lines");
    }

    @Test
    @DisplayName("a failure of another type is retried up to maxAttempts, then dead-lettered with reason handler-failed")
    void retryableRetriedToTheLast() {
        Run run = run(THREE.notRetrying(IllegalArgumentException.class),
                payload -> new IllegalStateException("stock service of " + payload + " unavailable"), "busy");
        Message<String> dl = run.deadLetter("busy");
        assertThat(run.attemptsOf("busy")).isEqualTo(3);
        assertThat(dl.headers())
                .containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed")
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3")
                .containsEntry(Envelope.ERROR_TYPE, IllegalStateException.class.getName());
    }

    @Test
    @DisplayName("with retryingOnly, the listed type is retried and any other is not")
    void retryingOnlyTheListed() {
        Run run = run(THREE.retryingOnly(UncheckedIOException.class), payload -> payload.equals("io")
                ? new UncheckedIOException("read timed out", new IOException("timed out"))
                : new IllegalStateException("unexpected " + payload), "io", "state");
        assertThat(run.deadLetter("state").headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "non-retryable")
                .containsEntry(Envelope.ERROR_TYPE, IllegalStateException.class.getName());
        assertThat(run.deadLetter("io").headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed")
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3");
        assertThat(run.attemptsOf("state")).isEqualTo(1);
        assertThat(run.attemptsOf("io")).isEqualTo(3);
    }

    @Test
    @DisplayName("a non-retryable exception wrapped as the cause is classified by its cause; the error type is the thrown one")
    void classifiedByItsCause() {
        Run run = run(THREE.notRetrying(IllegalArgumentException.class),
                payload -> new RuntimeException("handler of " + payload + " failed",
                        new IllegalArgumentException("quantity must be positive")), "wrapped");
        Message<String> dl = run.deadLetter("wrapped");
        assertThat(run.attemptsOf("wrapped")).isEqualTo(1);
        assertThat(dl.headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "non-retryable")
                .containsEntry(Envelope.ERROR_TYPE, RuntimeException.class.getName());
    }

    @Test
    @DisplayName("with broker-side retry, a non-retryable failure is dead-lettered at once, not sent through the broker's retry")
    void notThroughTheBroker() {
        assumeTrue(capabilities().delayedDelivery(), "broker '" + brokerId() + "' does not declare delayed delivery");
        RetryPolicy viaBroker = RetryPolicy.fixed(3, Duration.ofSeconds(1)).viaBroker(Duration.ofSeconds(1))
                .notRetrying(IllegalArgumentException.class);
        Run run = run(viaBroker, payload -> payload.equals("invalid") ? new IllegalArgumentException("no lines")
                : new IllegalStateException("busy"), "invalid", "busy");
        Message<String> invalid = run.deadLetter("invalid");
        assertThat(invalid.headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "non-retryable")
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "1");
        assertThat(run.attemptsOf("invalid")).isEqualTo(1);
        assertThat(run.deadLetter("busy").headers()).as("a retryable failure still goes through the broker's retry")
                .containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed").containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3");
        assertThat(run.attemptsOf("invalid")).as("no attempt after the dead letter").isEqualTo(1);
    }

    /** Subscribes a handler that throws {@code failure} on every attempt, publishes the payloads and reads the dead letters. */
    private Run run(RetryPolicy policy, Function<String, Exception> failure, String... payloads) {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        List<String> attempts = new CopyOnWriteArrayList<>();
        MessageHandler<String> handler = (m, c) -> {
            attempts.add(m.payload());
            throw failure.apply(m.payload());
        };
        subscribe(switchboard(), dest, TEXT, s -> s.group("g").delivery(Delivery.AT_LEAST_ONCE).retry(policy), handler);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        for (String payload : payloads) {
            join(pub.publish(keyed("k-" + payload, payload)));
        }
        dead.awaitCount(payloads.length);
        return new Run(dead, attempts);
    }

    private record Run(Recorder<String> dead, List<String> attempts) {
        Message<String> deadLetter(String payload) {
            return dead.received().stream().map(Received::message).filter(m -> m.payload().equals(payload)).findFirst()
                    .orElseThrow(() -> new AssertionError("no dead letter of '" + payload + "' among " + dead.payloads()));
        }

        long attemptsOf(String payload) {
            return attempts.stream().filter(payload::equals).count();
        }
    }
}
