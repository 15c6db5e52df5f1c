package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Recorder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Interop with plain amqp-client")
class RabbitInteropTest extends RabbitTestSupport {

    @Test
    @DisplayName("a plain consumer reads a Switchboard message as a CloudEvent in AMQP binary mode")
    void plainConsumerReadsSwitchboardMessage() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("outbound");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 1));
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            Channel channel = plain.createChannel();
            String queue = scratch.queue("plain-reader");
            channel.queueDeclare(queue, false, true, true, null);
            channel.queueBind(queue, destination, "#");

            PublishReceipt receipt = join(sb.publisher(destination, Codec.utf8()).build()
                    .publish(Message.builder("hello").key("k-1").header("tenant", "acme").build()));

            AtomicReference<GetResponse> got = new AtomicReference<>();
            await().atMost(TIMEOUT).until(() -> {
                got.set(channel.basicGet(queue, true));
                return got.get() != null;
            });
            AMQP.BasicProperties props = got.get().getProps();
            Map<String, Object> headers = props.getHeaders();
            assertThat(new String(got.get().getBody(), StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(props.getMessageId()).isEqualTo(receipt.messageId());
            assertThat(props.getContentType()).startsWith("text/plain");
            assertThat(props.getDeliveryMode()).as("persistent").isEqualTo(2);
            assertThat(headers.get("cloudEvents_id")).hasToString(receipt.messageId());
            assertThat(headers.get("cloudEvents_specversion")).hasToString("1.0");
            assertThat(headers.get("cloudEvents_subject")).hasToString("k-1");
            assertThat(headers.get("tenant")).hasToString("acme");
            String time = headers.get("cloudEvents_time").toString();
            assertThat(time).as("microsecond publish time").matches(".*T.*\\.\\d{6}Z");
            assertThat(props.getTimestamp().getTime()).as("AMQP timestamp: whole seconds of the same instant")
                    .isEqualTo(Instant.parse(time).getEpochSecond() * 1000);
        }
    }

    @Test
    @DisplayName("Switchboard consumes a plain message that has no envelope headers")
    void switchboardConsumesPlainMessage() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("inbound");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 1));
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("g").subscribe(received).ready());
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            Channel channel = plain.createChannel();
            channel.basicPublish(destination, "any.routing.key", null, "bare".getBytes(StandardCharsets.UTF_8));
            AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId("plain-2")
                    .timestamp(new Date(1_700_000_000_000L)).headers(Map.of("origin", "legacy")).build();
            channel.basicPublish(destination, "any.routing.key", props, "with id".getBytes(StandardCharsets.UTF_8));
        }

        var got = received.awaitCount(2).received();
        Message<String> bare = got.get(0).message();
        assertThat(bare.payload()).isEqualTo("bare");
        assertThat(bare.key()).isNull();
        assertThat(bare.headers()).isEmpty();
        assertThat(bare.id()).isNotBlank();
        Message<String> withId = got.get(1).message();
        assertThat(withId.id()).isEqualTo("plain-2");
        assertThat(withId.timestamp()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThat(withId.headers()).containsExactly(Map.entry("origin", "legacy"));
        assertThat(got.get(0).context().attempt()).isEqualTo(1);
    }
}
