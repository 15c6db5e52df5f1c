package io.switchboard.schemaregistry.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.CodecException;
import io.switchboard.schemaregistry.SchemaRegistryClient;
import io.switchboard.schemaregistry.SchemaRegistryException;
import io.switchboard.schemaregistry.StandInRegistry;
import io.switchboard.schemaregistry.StandInRegistryTest;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** AvroCodec against {@link StandInRegistry}, a stand-in for a registry (not a real one). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AvroCodecTest extends StandInRegistryTest {
    private static final Schema ORDER_V1 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"}]}");
    // v2 adds a field with a default (a BACKWARD-compatible change) and keeps the others
    private static final Schema ORDER_V2 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
            + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"},"
            + "{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}]}");


    private static GenericRecord order(Schema schema, long id, double amount) {
        GenericRecord order = new GenericData.Record(schema);
        order.put("id", id);
        order.put("amount", amount);
        if (schema.getField("currency") != null) {
            order.put("currency", "USD");
        }
        return order;
    }

    @Test
    void writesTheConfluentWireFormatAndReadsItBack() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").build();

        byte[] bytes = codec.encode(order(ORDER_V1, 42, 9.5));

        int id = client.lookup("orders-value", io.switchboard.schemaregistry.SchemaType.AVRO, ORDER_V1.toString());
        assertThat(bytes[0]).isZero();
        assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(id);
        // id 42 is zig-zag 84 (0x54); 9.5 is the double's 8 little-endian bytes
        assertThat(Arrays.copyOfRange(bytes, 5, 6)).containsExactly(0x54);
        assertThat(bytes).hasSize(5 + 1 + 8);
        GenericRecord back = codec.decode(bytes);
        assertThat(back.get("id")).isEqualTo(42L);
        assertThat(back.get("amount")).isEqualTo(9.5);
        assertThat(codec.subject()).isEqualTo("orders-value");
        assertThat(codec.contentType()).isEqualTo("application/avro");
    }

    @Test
    void theDocumentedUse() {
        Schema orderSchema = ORDER_V1;
        String registryUrl = registry.url();
        // tag::schema-registry-avro[]
        SchemaRegistryClient registry = SchemaRegistryClient.builder(registryUrl) // Apicurio: <url>/apis/ccompat/v7
                .timeout(Duration.ofSeconds(5))
                .build();
        AvroCodec<GenericRecord> codec = AvroCodec.generic(registry, orderSchema)
                .destination("orders") // registers under subject orders-value, as KafkaAvroSerializer does
                .build();
        // end::schema-registry-avro[]
        GenericRecord order = order(ORDER_V1, 1, 2);
        assertThat(codec.decode(codec.encode(order))).isEqualTo(order);
        assertThat(this.registry.requests).containsExactly("POST /subjects/orders-value/versions");
    }

    @Test
    void registersOnceAndMakesNoCallPerMessage() {
        AvroCodec<GenericRecord> writer = AvroCodec.generic(client, ORDER_V1).destination("orders").build();
        SchemaRegistryClient otherClient = SchemaRegistryClient.builder(registry.url()).build();
        AvroCodec<GenericRecord> reader = AvroCodec.generic(otherClient, ORDER_V1).destination("orders").build();

        for (int i = 0; i < 100; i++) {
            assertThat(reader.decode(writer.encode(order(ORDER_V1, i, i))).get("id")).isEqualTo((long) i);
        }

        assertThat(registry.requests).containsExactly("POST /subjects/orders-value/versions", "GET /schemas/ids/1");
    }

    @Test
    void oneCodecServesManyThreads() throws Exception {
        AvroCodec<GenericRecord> v1 = AvroCodec.generic(client, ORDER_V1).destination("orders").build();
        AvroCodec<GenericRecord> v2 = AvroCodec.generic(client, ORDER_V2).destination("orders").build();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long base = t * 1_000L;
                runs.add(pool.submit(() -> {
                    for (long i = base; i < base + 250; i++) {
                        assertThat(v1.decode(v1.encode(order(ORDER_V1, i, i))).get("id")).isEqualTo(i);
                        assertThat(v2.decode(v1.encode(order(ORDER_V1, i, i))).get("currency").toString()).isEqualTo("EUR");
                        assertThat(v1.decode(v2.encode(order(ORDER_V2, i, i))).get("id")).isEqualTo(i);
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        // one registration per schema and one fetch per id at most, whatever the threads raced to
        assertThat(registry.requests.stream().filter(r -> r.startsWith("POST")).distinct()).hasSize(1);
        assertThat(registry.requests).hasSizeLessThanOrEqualTo(2 * 4 + 2 * 4);
    }

    @Test
    void aReaderOfANewerSchemaFillsTheAddedFieldFromItsDefault() {
        AvroCodec<GenericRecord> v1 = AvroCodec.generic(client, ORDER_V1).destination("orders").build();
        AvroCodec<GenericRecord> v2 = AvroCodec.generic(SchemaRegistryClient.builder(registry.url()).build(), ORDER_V2)
                .destination("orders").build();

        GenericRecord read = v2.decode(v1.encode(order(ORDER_V1, 7, 1.25)));

        assertThat(read.getSchema()).isEqualTo(ORDER_V2);
        assertThat(read.get("id")).isEqualTo(7L);
        assertThat(read.get("currency").toString()).isEqualTo("EUR");
    }

    @Test
    void aReaderOfAnOlderSchemaSkipsTheFieldItDoesNotKnow() {
        AvroCodec<GenericRecord> v2 = AvroCodec.generic(client, ORDER_V2).destination("orders").build();
        AvroCodec<GenericRecord> v1 = AvroCodec.generic(SchemaRegistryClient.builder(registry.url()).build(), ORDER_V1)
                .destination("orders").build();

        byte[] bytes = v2.encode(order(ORDER_V2, 8, 2.5));
        GenericRecord read = v1.decode(bytes);

        assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(1);
        assertThat(read.getSchema()).isEqualTo(ORDER_V1);
        assertThat(read.get("amount")).isEqualTo(2.5);
    }

    @Test
    void aPayloadNotInTheWireFormatFailsNamingItAndTheFix() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").build();

        assertThatThrownBy(() -> codec.decode("{\"id\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("starting with 0x7b226964223a317d")
                .hasMessageContaining("not Avro in the Confluent wire format")
                .hasMessageContaining("KafkaAvroSerializer");
        assertThatThrownBy(() -> codec.decode(new byte[] {0, 0, 1}))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("Payload of 3 bytes");
        assertThat(registry.requests).isEmpty();
    }

    @Test
    void anUnknownSchemaIdFailsWithACodecException() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").build();

        assertThatThrownBy(() -> codec.decode(new byte[] {0, 0, 0, 0, 99, 2, 4}))
                .isInstanceOf(CodecException.class)
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining(registry.url() + "/schemas/ids/99")
                .hasMessageContaining("Schema not found");
    }

    @Test
    void truncatedDataFailsWithACodecException() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").build();
        byte[] bytes = codec.encode(order(ORDER_V1, 1, 1));

        assertThatThrownBy(() -> codec.decode(Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("Avro payload of schema id 1 into shop.Order");
    }

    @Test
    void aProtobufSchemaIdIsNotReadAsAvro() {
        registry.seed("orders-value", 5, "PROTOBUF", "syntax = \"proto3\"; message Order { int64 id = 1; }");
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").build();

        assertThatThrownBy(() -> codec.decode(new byte[] {0, 0, 0, 0, 5, 0, 2}))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("Schema id 5")
                .hasMessageContaining("PROTOBUF schema, not Avro");
    }

    @Test
    void aRecordOfAnotherSchemaOrWithAMissingFieldIsRefused() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").build();
        GenericRecord incomplete = new GenericData.Record(ORDER_V1);
        incomplete.put("id", 1L);

        assertThatThrownBy(() -> codec.encode(order(ORDER_V2, 1, 1)))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("AvroCodec of shop.Order")
                .hasMessageContaining("build the record with the codec's schema");
        assertThatThrownBy(() -> codec.encode(incomplete))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("subject 'orders-value'")
                .hasMessageContaining("set every field the schema requires");
    }

    @Test
    void theSubjectIsNamedAfterTheDestinationOrSet() {
        AvroCodec.generic(client, ORDER_V1).destination("orders").subjectNaming(d -> "shop." + d).build()
                .encode(order(ORDER_V1, 1, 1));
        AvroCodec.generic(client, ORDER_V1).subject("shop.Order").build().encode(order(ORDER_V1, 1, 1));

        assertThat(registry.requests).containsExactly("POST /subjects/shop.orders/versions",
                "POST /subjects/shop.Order/versions");
        assertThatThrownBy(() -> AvroCodec.generic(client, ORDER_V1).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("destination(\"orders\")");
    }

    @Test
    void withoutAutoRegisterTheSchemaIsOnlyLookedUp() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, ORDER_V1).destination("orders").autoRegister(false).build();

        assertThatThrownBy(() -> codec.encode(order(ORDER_V1, 1, 1)))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("subject 'orders-value'")
                .hasMessageContaining("register the schema under subject 'orders-value' first");
        registry.seed("orders-value", 12, "AVRO", ORDER_V1.toString());
        byte[] bytes = codec.encode(order(ORDER_V1, 1, 1));

        assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(12);
        assertThat(registry.requests).containsOnly("POST /subjects/orders-value");
    }

    @Test
    void readsAndWritesASpecificRecordClass() {
        AvroCodec<Shipment> codec = AvroCodec.specific(client, Shipment.class).destination("shipments").build();

        Shipment back = codec.decode(codec.encode(new Shipment("s-1", 3)));

        assertThat(back.id()).isEqualTo("s-1");
        assertThat(back.parcels()).isEqualTo(3);
        // a generic reader of the same subject reads what the specific writer wrote
        GenericRecord generic = AvroCodec.generic(client, Shipment.SCHEMA$).destination("shipments").build()
                .decode(codec.encode(new Shipment("s-2", 4)));
        assertThat(generic.get("parcels")).isEqualTo(4);
    }

    @Test
    void refusesASchemaThatIsNotARecord() {
        assertThatThrownBy(() -> AvroCodec.generic(client, Schema.create(Schema.Type.STRING)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a record schema, not STRING");
    }
}
