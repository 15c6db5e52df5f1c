package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "At-least-once" cases; {@link BrokerContract} runs them as a nested group. */
abstract class AtLeastOnceCases extends ContractCases {

    AtLeastOnceCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("retries a failed handler and counts the attempts")
    void retriesUntilSuccess() {
        String dest = destination();
        Recorder<String> rec = new Recorder<>(timeout(), r -> r.context().attempt() < 3);
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("flaky"));
        rec.awaitCount(1);
        assertThat(rec.attempts()).extracting(r -> r.context().attempt()).containsExactly(1, 2, 3);
        assertThat(rec.received().get(0).context().isLastAttempt()).isTrue();
    }

    @Test
    @DisplayName("sends a message to the dead-letter destination after the last attempt, with error headers")
    void deadLettersAfterMaxAttempts() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Recorder<String> rec = new Recorder<>(timeout(), r -> true);
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        PublishReceipt receipt = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(
                Message.builder("doomed").key("k-9").header("ce_region", "eu-west").build()));

        Message<String> dl = dead.awaitCount(1).received().get(0).message();
        assertThat(rec.attempts()).hasSize(3);
        assertThat(dl.headers()).as("a CloudEvents extension is kept on dead-lettering").containsEntry("ce_region", "eu-west");
        assertThat(dl.payload()).isEqualTo("doomed");
        assertThat(dl.key()).isEqualTo("k-9");
        assertThat(dl.id()).isEqualTo(receipt.messageId());
        assertThat(dl.timestamp()).as("the publish time is kept, also where the broker's timestamp carried it")
                .isEqualTo(rec.attempts().get(0).message().timestamp());
        assertThat(dl.headers())
                .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3")
                .containsEntry(Envelope.ERROR_TYPE, IllegalStateException.class.getName())
                .containsEntry(Envelope.ORIGINAL_DESTINATION, dest)
                .containsEntry(Envelope.DEAD_LETTER_GROUP, "g")
                .containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed");
        assertThat(dl.headers().get(Envelope.ERROR_MESSAGE)).contains("planned failure");
    }

    @Test
    @DisplayName("keeps later messages flowing while one message is retried and dead-lettered")
    void laterMessagesFlow() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Recorder<String> rec = new Recorder<>(timeout(), r -> r.message().payload().equals("bad"));
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        join(pub.publish(keyed("k", "good-1")));
        join(pub.publish(keyed("k", "bad")));
        join(pub.publish(keyed("k", "good-2")));
        assertThat(rec.awaitCount(2).payloads()).containsExactly("good-1", "good-2");
        assertThat(dead.awaitCount(1).payloads()).containsExactly("bad");
    }

    @Test
    @DisplayName("dead-letters at once when retries are off")
    void noRetryPolicy() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Recorder<String> rec = new Recorder<>(timeout(), r -> true);
        subscribe(switchboard(), dest, TEXT, b -> b.group("g").retry(RetryPolicy.NONE), rec);
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("once"));
        assertThat(dead.awaitCount(1).received().get(0).message().headers()).containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "1");
        assertThat(rec.attempts()).hasSize(1);
    }
}
