package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.switchboard.Codec;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.testkit.Recorder;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ delayed delivery through the delay levels (no plugin)")
class RabbitDelayTest extends RabbitTestSupport {

    @Test
    @DisplayName("delayed records (delay and deliverAt, 0.1 to 3 s) all arrive, none early, undelayed ones at once")
    void delayedRecordsArriveNoneEarly() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("delayed");
        DelayProbe probe = new DelayProbe();
        join(sb.subscriber(destination, Codec.utf8()).group("g").concurrency(2).subscribe(probe).ready());
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

        probe.publish(publisher, 60, Duration.ofMillis(100), Duration.ofSeconds(3), 34);

        probe.awaitAll(Duration.ofSeconds(60), "classic levels, one Switchboard");
    }

    @Test
    @DisplayName("delayed records wait in the broker: published by one Switchboard, closed, received by a new one")
    void delayedRecordsOutliveTheApplication() throws Exception {
        String destination = scratch.name("outlive");
        DelayProbe probe = new DelayProbe();
        Switchboard first = switchboard("rabbitmq.required-groups", "g");
        probe.publish(first.publisher(destination, Codec.utf8()).build(), 30, Duration.ofSeconds(2), Duration.ofSeconds(4), 35);
        first.close();

        Switchboard second = switchboard("rabbitmq.required-groups", "g");
        join(second.subscriber(destination, Codec.utf8()).group("g").subscribe(probe).ready());

        probe.awaitAll(Duration.ofSeconds(60), "publisher's Switchboard closed while they waited");
    }

    @Test
    @DisplayName("with quorum queues the levels are quorum queues of their own chain, and delayed records arrive")
    void quorumLevels() throws Exception {
        Switchboard sb = switchboard("rabbitmq.queue-type", "quorum");
        String destination = scratch.name("quorum");
        DelayProbe probe = new DelayProbe();
        join(sb.subscriber(destination, Codec.utf8()).group("g").subscribe(probe).ready());

        probe.publish(sb.publisher(destination, Codec.utf8()).build(), 20, Duration.ofMillis(200), Duration.ofSeconds(2), 36);

        probe.awaitAll(Duration.ofSeconds(60), "quorum levels");
        try (Connection admin = SERVER.connect(scratch.name("admin")); Channel channel = admin.createChannel()) {
            assertThat(channel.queueDeclarePassive("switchboard.delay.quorum.0").getQueue()).isNotNull();
        }
    }

    @Test
    @DisplayName("a delayed record with a tag reaches only the groups whose filter selects it")
    void delayedRecordKeepsItsTag() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("tagged");
        Recorder<String> paid = recorded(sb.subscriber(destination, Codec.utf8()).group("paid").filter("paid"));
        Recorder<String> all = recorded(sb.subscriber(destination, Codec.utf8()).group("all"));
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

        join(publisher.publish(Message.builder("cancel-if-unpaid").tag("unpaid").delay(Duration.ofMillis(500)).build()));
        join(publisher.publish(Message.builder("bill").tag("paid").delay(Duration.ofMillis(700)).build()));

        assertThat(all.awaitCount(2).payloads()).containsExactlyInAnyOrder("cancel-if-unpaid", "bill");
        assertThat(paid.awaitCount(1).payloads()).containsExactly("bill");
    }

    @Test
    @DisplayName("a delay longer than the levels hold fails its publish naming the longest delay")
    void tooLongADelayFails() {
        Switchboard sb = switchboard("rabbitmq.required-groups", "g");
        Publisher<String> publisher = sb.publisher(scratch.name("long"), Codec.utf8()).build();

        assertThat(publisher.publish(Message.builder("x").delay(Duration.ofDays(63)).build()).toCompletableFuture())
                .failsWithin(TIMEOUT).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidMessageException.class)
                .withMessageContaining("at most 5368709110 ms");
    }
}
