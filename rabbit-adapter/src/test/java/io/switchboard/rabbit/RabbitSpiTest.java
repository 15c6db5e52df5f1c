package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import io.switchboard.testkit.CollectingListener;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The RabbitMQ SPI implementation")
class RabbitSpiTest extends RabbitTestSupport {

    @Test
    @DisplayName("bounds unsettled records by maxInFlight, reports queue depth, and redelivers a nacked record")
    void prefetchBacklogAndNack() throws Exception {
        BrokerConfig config = new BrokerConfig("spi", "rabbitmq", Map.of(
                "rabbitmq.uri", SERVER.uriWithCredentials(), "rabbitmq.connection-name", connectionName()));
        try (BrokerAdapter adapter = new RabbitAdapterFactory().create(config)) {
            String destination = scratch.name("spi");
            adapter.provisioner().ensureDestination(DestinationSpec.of(destination, 2));
            List<InboundRecord> delivered = new CopyOnWriteArrayList<>();
            RawConsumer consumer = adapter.createConsumer(
                    new ConsumerSpec(destination, "g", false, Delivery.AT_LEAST_ONCE, 2, null, Map.of()));
            join(consumer.start(listener(delivered)));
            RawPublisher publisher = adapter.createPublisher(new PublisherSpec(destination, Delivery.AT_LEAST_ONCE, Map.of()));
            for (int i = 0; i < 10; i++) {
                join(publisher.send(new OutboundRecord(destination, "key-" + i, Map.of(Envelope.ID, "id-" + i),
                        new byte[] {(byte) i}, 0)));
            }

            await().atMost(TIMEOUT).until(() -> consumer.backlog().equals(OptionalLong.of(10)));
            assertThat(delivered).as("one unsettled record per partition queue").hasSize(2);

            InboundRecord first = delivered.get(0);
            first.nack();
            first.nack();
            await().atMost(TIMEOUT).until(() -> delivered.size() == 3);
            InboundRecord again = delivered.get(2);
            assertThat(again.headers()).containsEntry(Envelope.ID, first.headers().get(Envelope.ID));
            assertThat(again.deliveryCount()).isEqualTo(2);
            assertThat(again.partition()).isEqualTo(first.partition());

            delivered.forEach(InboundRecord::ack);
            await().atMost(TIMEOUT).until(() -> delivered.size() > 3);
            publisher.close();
            consumer.stop();
            consumer.close();
            consumer.close();
        }
    }

    private static RecordListener listener(List<InboundRecord> delivered) {
        return new CollectingListener(delivered);
    }

}
