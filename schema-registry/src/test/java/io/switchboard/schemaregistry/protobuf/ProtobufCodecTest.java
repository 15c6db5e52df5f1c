package io.switchboard.schemaregistry.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import io.switchboard.CodecException;
import io.switchboard.schemaregistry.SchemaRegistryClient;
import io.switchboard.schemaregistry.SchemaRegistryException;
import io.switchboard.schemaregistry.SchemaType;
import io.switchboard.schemaregistry.StandInRegistry;
import io.switchboard.schemaregistry.StandInRegistryTest;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ProtobufCodec against {@link StandInRegistry}, a stand-in for a registry (not a real one). No bytes here were
 * recorded from KafkaProtobufSerializer: the expected frames follow Confluent's documented wire format (magic byte,
 * schema id, message indexes, protobuf bytes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProtobufCodecTest extends StandInRegistryTest {

    private static FieldDescriptorProto field(String name, int number, Type type) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type).setLabel(Label.LABEL_OPTIONAL).build();
    }

    /** package shop; message Order { id, note, map items, oneof payment, optional coupon, nested Line }; message Refund. */
    private static FileDescriptor shop(boolean withRemark) throws DescriptorValidationException {
        DescriptorProto.Builder order = DescriptorProto.newBuilder().setName("Order")
                .addField(field("id", 1, Type.TYPE_INT64))
                .addField(field("note", 2, Type.TYPE_STRING))
                .addField(field("items", 3, Type.TYPE_MESSAGE).toBuilder().setLabel(Label.LABEL_REPEATED)
                        .setTypeName(".shop.Order.ItemsEntry"))
                .addField(field("card", 4, Type.TYPE_STRING).toBuilder().setOneofIndex(0))
                .addField(field("iban", 5, Type.TYPE_STRING).toBuilder().setOneofIndex(0))
                .addField(field("coupon", 6, Type.TYPE_STRING).toBuilder().setOneofIndex(1).setProto3Optional(true))
                .addOneofDecl(OneofDescriptorProto.newBuilder().setName("payment"))
                .addOneofDecl(OneofDescriptorProto.newBuilder().setName("_coupon"))
                .addNestedType(DescriptorProto.newBuilder().setName("ItemsEntry")
                        .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                        .addField(field("key", 1, Type.TYPE_STRING)).addField(field("value", 2, Type.TYPE_INT32)))
                .addNestedType(DescriptorProto.newBuilder().setName("Line").addField(field("sku", 1, Type.TYPE_STRING)));
        if (withRemark) {
            order.addField(field("remark", 7, Type.TYPE_STRING));
        }
        FileDescriptorProto file = FileDescriptorProto.newBuilder().setName("shop.proto").setSyntax("proto3")
                .setPackage("shop").addMessageType(order)
                .addMessageType(DescriptorProto.newBuilder().setName("Refund").addField(field("order", 1, Type.TYPE_INT64)))
                .build();
        return FileDescriptor.buildFrom(file, new FileDescriptor[0]);
    }

    @Test
    void writesAGeneratedMessageInTheDocumentedWireFormat() {
        ProtobufCodec<Timestamp> codec = ProtobufCodec.of(client, Timestamp.getDefaultInstance()).destination("clock").build();

        byte[] bytes = codec.encode(Timestamp.newBuilder().setSeconds(1).setNanos(2).build());

        // magic byte, schema id 1, message indexes [0] as the single byte 0, then fields 1 and 2 as varints
        assertThat(bytes).containsExactly(0, 0, 0, 0, 1, 0, 0x08, 0x01, 0x10, 0x02);
        assertThat(codec.decode(bytes)).isEqualTo(Timestamp.newBuilder().setSeconds(1).setNanos(2).build());
        assertThat(codec.contentType()).isEqualTo("application/protobuf");
        assertThat(registry.requests).containsExactly("POST /subjects/clock-value/versions");
        assertThat(client.schema(1).type()).isEqualTo(SchemaType.PROTOBUF);
        assertThat(codec.schema()).startsWith("syntax = \"proto3\";\npackage google.protobuf;\n")
                .contains("option java_package = \"com.google.protobuf\";")
                .contains("message Timestamp {\n  int64 seconds = 1;\n  int32 nanos = 2;\n}\n");
    }

    @Test
    void theDocumentedUse() {
        SchemaRegistryClient registry = client;
        // tag::schema-registry-protobuf[]
        ProtobufCodec<Timestamp> codec = ProtobufCodec.of(registry, Timestamp.getDefaultInstance())
                .destination("clock") // subject clock-value; the .proto text is written from the descriptor
                .build();
        // end::schema-registry-protobuf[]
        Timestamp now = Timestamp.newBuilder().setSeconds(1_800_000_000L).build();
        assertThat(codec.decode(codec.encode(now))).isEqualTo(now);
    }

    @Test
    void writesTheProtoFileOfADynamicMessage() throws Exception {
        Descriptor order = shop(false).findMessageTypeByName("Order");

        String text = ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(order)).destination("orders").build().schema();

        assertThat(text).isEqualTo("""
                syntax = "proto3";
                package shop;

                message Order {
                  int64 id = 1;
                  string note = 2;
                  map<string, int32> items = 3;
                  oneof payment {
                    string card = 4;
                    string iban = 5;
                  }
                  optional string coupon = 6;
                  message Line {
                    string sku = 1;
                  }
                }

                message Refund {
                  int64 order = 1;
                }
                """);
    }

    @Test
    void keepsTheIndexesOfNestedMessagesDeclaredBeforeAMap() throws Exception {
        DescriptorProto basket = DescriptorProto.newBuilder().setName("Basket")
                .addField(field("id", 1, Type.TYPE_STRING))
                .addField(field("counts", 2, Type.TYPE_MESSAGE).toBuilder().setLabel(Label.LABEL_REPEATED)
                        .setTypeName(".shop.Basket.CountsEntry"))
                .addNestedType(DescriptorProto.newBuilder().setName("Note").addField(field("text", 1, Type.TYPE_STRING)))
                .addNestedType(DescriptorProto.newBuilder().setName("CountsEntry")
                        .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                        .addField(field("key", 1, Type.TYPE_STRING)).addField(field("value", 2, Type.TYPE_INT32)))
                .build();
        Descriptor descriptor = FileDescriptor.buildFrom(FileDescriptorProto.newBuilder().setName("basket.proto")
                .setSyntax("proto3").setPackage("shop").addMessageType(basket).build(), new FileDescriptor[0])
                .findMessageTypeByName("Basket");

        String text = ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(descriptor)).subject("b").build().schema();

        // Note stays nested type 0 for a parser of the text: it comes before the map, whose entry the parser adds there
        assertThat(text).endsWith("""
                message Basket {
                  string id = 1;
                  message Note {
                    string text = 1;
                  }
                  map<string, int32> counts = 2;
                }
                """);
    }

    @Test
    void writesTheMessageIndexesOfAMessageThatIsNotTheFirst() throws Exception {
        FileDescriptor file = shop(false);
        Descriptor refund = file.findMessageTypeByName("Refund");
        Descriptor line = file.findMessageTypeByName("Order").findNestedTypeByName("Line");
        ProtobufCodec<DynamicMessage> refunds = ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(refund))
                .destination("refunds").build();
        ProtobufCodec<DynamicMessage> lines = ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(line))
                .destination("lines").build();

        byte[] refundBytes = refunds.encode(DynamicMessage.newBuilder(refund).setField(refund.findFieldByName("order"), 9L).build());
        byte[] lineBytes = lines.encode(DynamicMessage.newBuilder(line).setField(line.findFieldByName("sku"), "A").build());

        // [1]: count 1 and index 1, each zig-zag (2); [0, 1]: count 2 (4), then 0 and 1 (2): Order's nested type 0 is
        // ItemsEntry, the entry of its map
        assertThat(Arrays.copyOfRange(refundBytes, 5, 7)).containsExactly(2, 2);
        assertThat(Arrays.copyOfRange(lineBytes, 5, 8)).containsExactly(4, 0, 2);
        assertThat(refunds.decode(refundBytes).getField(refund.findFieldByName("order"))).isEqualTo(9L);
        assertThat(lines.decode(lineBytes).getField(line.findFieldByName("sku"))).isEqualTo("A");
    }

    @Test
    void aReaderOfAnOlderMessageKeepsWhatItKnows() throws Exception {
        Descriptor v2 = shop(true).findMessageTypeByName("Order");
        Descriptor v1 = shop(false).findMessageTypeByName("Order");
        ProtobufCodec<DynamicMessage> writer = ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(v2))
                .destination("orders").build();
        ProtobufCodec<DynamicMessage> reader = ProtobufCodec.of(SchemaRegistryClient.builder(registry.url()).build(),
                DynamicMessage.getDefaultInstance(v1)).destination("orders").build();

        DynamicMessage read = reader.decode(writer.encode(DynamicMessage.newBuilder(v2)
                .setField(v2.findFieldByName("id"), 5L).setField(v2.findFieldByName("remark"), "fragile").build()));

        assertThat(read.getField(v1.findFieldByName("id"))).isEqualTo(5L);
        assertThat(read.getUnknownFields().hasField(7)).isTrue();
    }

    @Test
    void aPayloadNotInTheWireFormatOrOfAnUnknownIdFails() {
        ProtobufCodec<Timestamp> codec = ProtobufCodec.of(client, Timestamp.getDefaultInstance()).destination("clock").build();

        assertThatThrownBy(() -> codec.decode(new byte[] {0x08, 0x01, 0x10, 0x02, 0, 0}))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("not Protobuf in the Confluent wire format");
        assertThatThrownBy(() -> codec.decode(new byte[] {0, 0, 0, 0, 42, 0, 0x08, 0x01}))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining(registry.url() + "/schemas/ids/42");
    }

    @Test
    void anAvroSchemaIdOrBrokenBytesFail() {
        registry.seed("clock-value", 3, "AVRO", "\"string\"");
        registry.seed("clock-value", 4, "PROTOBUF", "syntax = \"proto3\";");
        ProtobufCodec<Timestamp> codec = ProtobufCodec.of(client, Timestamp.getDefaultInstance()).destination("clock").build();

        assertThatThrownBy(() -> codec.decode(new byte[] {0, 0, 0, 0, 3, 0, 0x08, 0x01}))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("AVRO schema, not Protobuf");
        assertThatThrownBy(() -> codec.decode(new byte[] {0, 0, 0, 0, 4, 0, 0x08}))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("Protobuf payload of schema id 4 into google.protobuf.Timestamp");
    }

    @Test
    void aFileWithImportsNeedsItsTextGiven() throws Exception {
        FileDescriptorProto proto = FileDescriptorProto.newBuilder().setName("event.proto").setSyntax("proto3")
                .setPackage("shop").addDependency("google/protobuf/timestamp.proto")
                .addMessageType(DescriptorProto.newBuilder().setName("Event").addField(field("at", 1, Type.TYPE_MESSAGE)
                        .toBuilder().setTypeName(".google.protobuf.Timestamp")))
                .build();
        Descriptor event = FileDescriptor.buildFrom(proto, new FileDescriptor[] {Timestamp.getDescriptor().getFile()})
                .findMessageTypeByName("Event");

        assertThatThrownBy(() -> ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(event)).destination("events").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("imports [google/protobuf/timestamp.proto]")
                .hasMessageContaining("schema(<the .proto text as registered>)");
        registry.seed("events-value", 20, "PROTOBUF", "registered text");
        ProtobufCodec<DynamicMessage> codec = ProtobufCodec.of(client, DynamicMessage.getDefaultInstance(event))
                .destination("events").schema("registered text").autoRegister(false).build();
        assertThat(codec.encode(DynamicMessage.getDefaultInstance(event))).containsExactly(0, 0, 0, 0, 20, 0);
    }

    @Test
    void aMessageOfAnotherTypeIsRefused() throws Exception {
        ProtobufCodec<com.google.protobuf.Message> codec = ProtobufCodec.<com.google.protobuf.Message>of(client,
                Timestamp.getDefaultInstance()).destination("clock").build();

        assertThatThrownBy(() -> codec.encode(com.google.protobuf.Duration.getDefaultInstance()))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("Cannot encode google.protobuf.Duration with the ProtobufCodec of google.protobuf.Timestamp");
    }
}
