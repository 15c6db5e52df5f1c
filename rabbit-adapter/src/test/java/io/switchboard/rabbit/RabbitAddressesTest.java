package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.testkit.Recorder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code rabbitmq.addresses} on the local server: a dead address next to the live one is passed
 * over (amqp-client tries them in a shuffled order), so the URI's own host and port do not matter.
 * The failover between the nodes of a real cluster is {@link RabbitClusterFaultTest}'s.
 */
@DisplayName("RabbitMQ with several addresses")
class RabbitAddressesTest extends RabbitTestSupport {

    /** Nothing listens there: connecting is refused at once. */
    private static final String DEAD = "127.0.0.1:1";

    @Test
    @DisplayName("connects to whichever address answers, whatever the URI's host and port")
    void deadAddressPassedOver() throws Exception {
        Switchboard sb = switchboard("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:1/",
                "rabbitmq.addresses", DEAD + "," + SERVER.host() + ":" + SERVER.port() + "," + DEAD);
        String destination = scratch.name("addresses");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g").subscribe(received);
        join(subscription.ready());
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
        for (int i = 0; i < 10; i++) {
            join(publisher.publish(Message.of("k", "m" + i)));
        }
        received.awaitCount(10);
        assertThat(received.payloads()).containsExactly("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9");
    }

    @Test
    @DisplayName("no address answering fails the first publisher, naming the addresses")
    void noAddressAnswers() {
        try (Switchboard sb = Switchboard.builder().broker("rabbitmq")
                .property("rabbitmq.uri", "amqp://guest:secret-pw@127.0.0.1/")
                .property("rabbitmq.addresses", DEAD + ",127.0.0.1:2").build()) {
            assertThatThrownBy(() -> sb.publisher("t1", Codec.utf8()).build())
                    .isInstanceOf(SwitchboardException.class)
                    .hasMessageContaining("Cannot connect to RabbitMQ at amqp://guest:******@127.0.0.1/ "
                            + "(rabbitmq.addresses 127.0.0.1:1,127.0.0.1:2) (none of the addresses answered)")
                    .hasMessageNotContaining("secret-pw");
        }
    }

    @Test
    @DisplayName("switchboard.cluster-check=refuse: classic queues with several addresses are refused, naming the fix")
    void classicQueuesOnSeveralAddressesRefused() {
        assertThatThrownBy(() -> Switchboard.builder().broker("rabbitmq")
                .property("rabbitmq.uri", SERVER.uriWithCredentials())
                .property("rabbitmq.addresses", SERVER.host() + ":" + SERVER.port() + "," + DEAD)
                .property("switchboard.cluster-check", "refuse").build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'rabbitmq.queue-type' is 'classic'")
                .hasMessageContaining("rabbitmq.queue-type=quorum")
                .hasMessageContaining("switchboard.cluster-check=refuse");
        // with quorum queues the same addresses pass
        try (Switchboard sb = Switchboard.builder().broker("rabbitmq").property("rabbitmq.uri", SERVER.uriWithCredentials())
                .property("rabbitmq.addresses", SERVER.host() + ":" + SERVER.port() + "," + DEAD)
                .property("rabbitmq.queue-type", "quorum").property("switchboard.cluster-check", "refuse").build()) {
            assertThat(sb).isNotNull();
        }
    }
}
