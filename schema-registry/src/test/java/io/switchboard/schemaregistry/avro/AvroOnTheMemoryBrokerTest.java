package io.switchboard.schemaregistry.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import io.switchboard.schemaregistry.SchemaRegistryClient;
import io.switchboard.schemaregistry.StandInRegistryTest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * AvroCodec as a publisher's and a subscriber's codec on the in-memory broker: records arrive, and a payload that is
 * not in the wire format goes to the dead-letter destination as undecodable. The registry is {@code
 * StandInRegistry}, a stand-in, not a real one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AvroOnTheMemoryBrokerTest extends StandInRegistryTest {
    private static final Schema ORDER = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");

    @Test
    void recordsArriveAndAPayloadNotInTheWireFormatIsDeadLettered() throws Exception {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER).destination("orders").build();
        BlockingQueue<GenericRecord> received = new LinkedBlockingQueue<>();
        BlockingQueue<Message<byte[]>> dead = new LinkedBlockingQueue<>();
        try (Switchboard sb = Switchboard.builder().broker("memory").build()) {
            sb.subscriber("orders", codec).group("shipping").deadLetter("orders.dlq")
                    .subscribe((message, context) -> received.add(message.payload()));
            sb.subscriber("orders.dlq", Codec.bytes()).group("dlq-reader")
                    .subscribe((message, context) -> dead.add(message));

            GenericRecord order = new GenericData.Record(ORDER);
            order.put("id", 7L);
            sb.publisher("orders", codec).build().publish(order).toCompletableFuture().get(10, TimeUnit.SECONDS);
            byte[] json = "{\"id\":8}".getBytes(StandardCharsets.UTF_8);
            sb.publisher("orders", Codec.bytes()).build().publish(json).toCompletableFuture().get(10, TimeUnit.SECONDS);

            assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo(order);
            Message<byte[]> deadLetter = dead.poll(10, TimeUnit.SECONDS);
            assertThat(deadLetter).isNotNull();
            assertThat(deadLetter.payload()).isEqualTo(json);
            assertThat(deadLetter.headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "undecodable");
            assertThat(deadLetter.headers().get(Envelope.ERROR_MESSAGE)).contains("not Avro in the Confluent wire format");
            assertThat(received).isEmpty();
        }
    }

    @Test
    void aRegistryOutageDelaysTheRecordAndDeadLettersNothing() throws Exception {
        AvroCodec<GenericRecord> writer = AvroCodec.generic(client, ORDER).destination("prices").build();
        // the consumer is another process: a client of its own, whose cache does not hold the writer's schema
        AvroCodec<GenericRecord> reader = AvroCodec.generic(SchemaRegistryClient.builder(registry.url()).build(), ORDER)
                .destination("prices").build();
        BlockingQueue<GenericRecord> received = new LinkedBlockingQueue<>();
        BlockingQueue<Message<byte[]>> dead = new LinkedBlockingQueue<>();
        try (Switchboard sb = Switchboard.builder().broker("memory").build()) {
            GenericRecord order = new GenericData.Record(ORDER);
            order.put("id", 9L);
            sb.publisher("prices", writer).build().publish(order).toCompletableFuture().get(10, TimeUnit.SECONDS);
            registry.outages.set(2); // the reader's first two look-ups of the writer's schema get 503
            sb.subscriber("prices.dlq", Codec.bytes()).group("dlq-reader").subscribe((message, context) -> dead.add(message));
            sb.subscriber("prices", reader).group("quotes").deadLetter("prices.dlq")
                    .subscribe((message, context) -> received.add(message.payload()));

            assertThat(received.poll(20, TimeUnit.SECONDS)).as("the record once the registry answers").isEqualTo(order);
            assertThat(registry.outages).hasValue(0);
            assertThat(dead.poll(1, TimeUnit.SECONDS)).as("nothing dead-lettered for an outage").isNull();
        }
    }
}
