package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import io.switchboard.spi.SendResult;
import io.switchboard.testkit.RecordingEvents;
import io.switchboard.testkit.fault.TcpProxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The RabbitMQ adapter's client events")
class RabbitClientEventsTest extends RabbitTestSupport {

    private final RecordingEvents events = new RecordingEvents();
    private final List<InboundRecord> delivered = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    @Test
    @DisplayName("an outage: each connection's loss is a span its recovery ends, the consumer is recovered, held records are published again")
    void lostAndRecovered() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(SERVER.host(), SERVER.port());
                BrokerAdapter adapter = adapter("amqp://guest:guest@127.0.0.1:" + proxy.port() + "/")) {
            String destination = scratch.name("lost");
            adapter.provisioner().ensureDestination(DestinationSpec.of(destination, 1));
            RawConsumer consumer = adapter.createConsumer(new ConsumerSpec(destination, "g", false, Delivery.AT_LEAST_ONCE, 8,
                    null, Map.of()));
            join(consumer.start(listener()));
            RawPublisher publisher = adapter.createPublisher(new PublisherSpec(destination, Delivery.AT_LEAST_ONCE, Map.of()));
            join(publisher.send(record(destination, 0)));
            assertThat(events.all()).as("nothing happened yet").isEmpty();

            proxy.cut();
            events.await(EventKinds.CONNECTION_LOST, e -> e.subject().equals(connectionName() + "-publish"), TIMEOUT);
            events.await(EventKinds.CONNECTION_LOST, e -> e.subject().equals(connectionName() + "-consume"), TIMEOUT);
            List<CompletableFuture<SendResult>> during = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                during.add(publisher.send(record(destination, i)).toCompletableFuture());
            }
            proxy.restore();
            join(CompletableFuture.allOf(during.toArray(CompletableFuture[]::new)));

            events.await(EventKinds.CONNECTION_LOST, e -> e.subject().equals(connectionName() + "-publish") && e.closed(), TIMEOUT);
            events.await(EventKinds.CONNECTION_LOST, e -> e.subject().equals(connectionName() + "-consume") && e.closed(), TIMEOUT);
            RecordingEvents.Event recovered = events.await(EventKinds.CONSUMER_RECOVERED,
                    e -> e.subject().startsWith(destination), TIMEOUT);
            assertThat(recovered.detail()).contains("group 'g'");
            RecordingEvents.Event retried = events.await(EventKinds.PUBLISH_RETRY, e -> e.subject().equals(destination), TIMEOUT);
            assertThat(retried.detail()).startsWith("published ").contains("again after the connection to RabbitMQ recovered");
            assertThat(events.of(EventKinds.CONSUMER_CANCELLED)).as("a lost connection cancels no consumer").isEmpty();
            consumer.close();
        }
        assertThat(events.all()).as("every span ended").allMatch(RecordingEvents.Event::closed);
        assertThat(failures).isEmpty();
    }

    @Test
    @DisplayName("the consumed queue deleted: the broker's cancel is reported for that queue")
    void queueDeletedCancelsConsumer() throws Exception {
        try (BrokerAdapter adapter = adapter(SERVER.uriWithCredentials())) {
            String destination = scratch.name("cancel");
            adapter.provisioner().ensureDestination(DestinationSpec.of(destination, 1));
            RawConsumer consumer = adapter.createConsumer(new ConsumerSpec(destination, "g", false, Delivery.AT_LEAST_ONCE, 8,
                    null, Map.of()));
            join(consumer.start(listener()));
            List<String> queues = SERVER.queuesOf(SERVER.virtualHost()).stream()
                    .filter(name -> name.equals(destination + ".g") || name.startsWith(destination + ".g.")).toList();
            assertThat(queues).as("the group's queue").isNotEmpty();
            try (Connection connection = SERVER.connect(scratch.name("deleter")); Channel channel = connection.createChannel()) {
                for (String queue : queues) {
                    channel.queueDelete(queue);
                }
            }
            RecordingEvents.Event cancelled = events.await(EventKinds.CONSUMER_CANCELLED, e -> queues.contains(e.subject()), TIMEOUT);
            assertThat(cancelled.detail()).contains("group 'g'").contains(destination);
            org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> !failures.isEmpty());
            assertThat(events.of(EventKinds.CONSUMER_RECOVERED)).isEmpty();
            consumer.close();
        }
    }

    private BrokerAdapter adapter(String uri) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("rabbitmq.uri", uri);
        properties.put("rabbitmq.connection-name", connectionName());
        properties.put("rabbitmq.recovery-interval", "300ms");
        return new RabbitAdapterFactory().create(new BrokerConfig("events", "rabbitmq", properties, events));
    }

    private static OutboundRecord record(String destination, int i) {
        return new OutboundRecord(destination, "k", Map.of(Envelope.ID, "id-" + i), new byte[] {(byte) i}, 0);
    }

    private RecordListener listener() {
        return new RecordListener() {
            @Override
            public void onRecord(InboundRecord record) {
                delivered.add(record);
                record.ack();
            }

            @Override
            public void onFailure(Throwable error) {
                failures.add(error);
            }
        };
    }
}
