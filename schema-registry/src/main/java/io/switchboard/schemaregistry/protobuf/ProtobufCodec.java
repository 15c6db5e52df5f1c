package io.switchboard.schemaregistry.protobuf;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.schemaregistry.CodecBuilder;
import io.switchboard.schemaregistry.RegisteredSchema;
import io.switchboard.schemaregistry.SchemaRegistryClient;
import io.switchboard.schemaregistry.SchemaType;
import io.switchboard.schemaregistry.internal.ProtoText;
import io.switchboard.schemaregistry.internal.WireFormat;
import io.switchboard.schemaregistry.internal.WriterSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Protocol Buffers messages in the Confluent wire format: the magic byte {@code 0x00}, the schema's registry id (4
 * bytes, big-endian), the message indexes (which message of the {@code .proto} file: a single {@code 0} byte for the
 * file's first message, else a zig-zag varint count and the zig-zag varint index at each level of nesting), then the
 * message's protobuf bytes; what {@code KafkaProtobufSerializer} writes and {@code KafkaProtobufDeserializer} reads.
 *
 * <p>Encoding registers the message's {@code .proto} file (its text written from the descriptor, or the text given
 * with {@link Builder#schema(String)}) under the subject once, on the first payload. Decoding checks once per schema id
 * that the registry knows it as a Protobuf schema, then parses the bytes as the codec's message type: fields the
 * writer added are kept as unknown fields, fields it dropped read as their defaults, Protobuf's own evolution rules.
 * A payload that is not in the wire format, or whose schema id the registry does not know, fails with a {@link
 * CodecException}, so it goes to the dead-letter destination. Thread-safe.
 *
 * <pre>{@code
 * Codec<Order> codec = ProtobufCodec.of(registry, Order.getDefaultInstance()).destination("orders").build();
 * Codec<DynamicMessage> dynamic = ProtobufCodec.of(registry, DynamicMessage.getDefaultInstance(descriptor))
 *         .destination("orders").build();
 * }</pre>
 *
 * @param <T> the message type: a generated message class or {@link DynamicMessage}
 */
public final class ProtobufCodec<T extends Message> implements Codec<T> {
    /** The content type written to the envelope. */
    public static final String CONTENT_TYPE = "application/protobuf";

    private final SchemaRegistryClient registry;
    private final Descriptor descriptor;
    private final Parser<? extends Message> parser;
    private final Class<?> type;
    private final WriterSchema writerSchema;
    private final byte[] indexes;
    private final Set<Integer> knownIds = ConcurrentHashMap.newKeySet();

    private ProtobufCodec(T prototype, SchemaRegistryClient registry, WriterSchema writerSchema) {
        this.registry = registry;
        this.descriptor = prototype.getDescriptorForType();
        this.parser = prototype.getParserForType();
        this.type = prototype.getClass();
        this.writerSchema = writerSchema;
        this.indexes = indexesOf(descriptor);
    }

    /**
     * {@return a builder of a codec of the prototype's message type}
     *
     * @param <T> the message type
     * @param registry the registry client
     * @param prototype the type's default instance: {@code Order.getDefaultInstance()}, or {@code
     *     DynamicMessage.getDefaultInstance(descriptor)}
     */
    public static <T extends Message> Builder<T> of(SchemaRegistryClient registry, T prototype) {
        return new Builder<>(registry, prototype);
    }

    /** {@return the subject the codec's schema is registered under} */
    public String subject() {
        return writerSchema.subject();
    }

    /** {@return the {@code .proto} text the codec registers} */
    public String schema() {
        return writerSchema.text();
    }

    @Override
    public byte[] encode(T value) {
        Objects.requireNonNull(value, "value");
        if (!type.isInstance(value) || value.getDescriptorForType() != descriptor) {
            throw new CodecException("Cannot encode " + value.getDescriptorForType().getFullName() + " with the "
                    + "ProtobufCodec of " + descriptor.getFullName() + " (subject '" + subject() + "'); use a codec of "
                    + "the message's own type");
        }
        ByteArrayOutputStream out = WireFormat.start(writerSchema.id());
        out.writeBytes(indexes);
        try {
            value.writeTo(out);
        } catch (IOException e) { // a ByteArrayOutputStream does not fail
            throw new CodecException("Cannot encode " + descriptor.getFullName() + ": " + e, e);
        }
        return out.toByteArray();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T decode(byte[] bytes) {
        int id = WireFormat.schemaId(bytes, "Protobuf");
        if (!knownIds.contains(id)) {
            RegisteredSchema written = registry.schema(id);
            if (written.type() != SchemaType.PROTOBUF) {
                throw new CodecException("Schema id " + id + " in " + registry.baseUrl() + " is a " + written.type()
                        + " schema, not Protobuf; read this destination with the codec of that format");
            }
            knownIds.add(id);
        }
        try {
            CodedInputStream in = CodedInputStream.newInstance(bytes, WireFormat.HEADER, bytes.length - WireFormat.HEADER);
            int count = in.readSInt32();
            if (count < 0 || count > bytes.length) {
                throw new CodecException("Protobuf payload of schema id " + id + " has " + count + " message indexes;"
                        + " check that the producer uses KafkaProtobufSerializer or this codec (the message indexes "
                        + "follow the schema id)");
            }
            for (int i = 0; i < count; i++) {
                in.readSInt32();
            }
            return (T) parser.parseFrom(in);
        } catch (InvalidProtocolBufferException e) {
            throw new CodecException("Cannot decode " + bytes.length + "-byte Protobuf payload of schema id " + id
                    + " into " + descriptor.getFullName() + ": " + e.getMessage() + "; check that the producer wrote "
                    + descriptor.getFullName() + " (or a compatible version of it) with schema id " + id, e);
        } catch (IOException e) {
            throw new CodecException("Cannot read the message indexes of the Protobuf payload of schema id " + id + ": "
                    + e.getMessage() + "; check that the producer uses KafkaProtobufSerializer or this codec", e);
        }
    }

    /** The message indexes of the wire format: [0] as one 0 byte, else the count and each index, zig-zag varints. */
    private static byte[] indexesOf(Descriptor descriptor) {
        Deque<Integer> path = new ArrayDeque<>();
        for (Descriptor d = descriptor; d != null; d = d.getContainingType()) {
            path.addFirst(d.getIndex());
        }
        if (path.size() == 1 && path.getFirst() == 0) {
            return new byte[] {0};
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        try {
            coded.writeSInt32NoTag(path.size());
            for (int index : path) {
                coded.writeSInt32NoTag(index);
            }
            coded.flush();
        } catch (IOException e) { // a ByteArrayOutputStream does not fail
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }

    @Override
    public String toString() {
        return "ProtobufCodec[" + descriptor.getFullName() + ", subject '" + subject() + "', " + registry + "]";
    }

    /**
     * Builds a {@link ProtobufCodec}.
     *
     * @param <T> the message type
     */
    public static final class Builder<T extends Message> extends CodecBuilder<Builder<T>> {
        private final T prototype;
        private String schema;

        private Builder(SchemaRegistryClient registry, T prototype) {
            super(registry);
            this.prototype = Objects.requireNonNull(prototype, "prototype");
        }

        /**
         * Sets the {@code .proto} text to register (or look up), instead of the text written from the message's
         * descriptor: for a file that imports others, or to register exactly the file the neighbours registered.
         *
         * @param protoText the {@code .proto} file's text
         * @return this builder
         */
        public Builder<T> schema(String protoText) {
            this.schema = Objects.requireNonNull(protoText, "protoText");
            return this;
        }

        /**
         * {@return the codec}
         *
         * @throws IllegalStateException when neither a destination nor a subject is set
         * @throws IllegalArgumentException when the message's file imports others and no schema text is set
         */
        public ProtobufCodec<T> build() {
            Descriptor descriptor = prototype.getDescriptorForType();
            return new ProtobufCodec<>(prototype, registry(), new WriterSchema(registry(), resolvedSubject("ProtobufCodec of "
                    + descriptor.getFullName()), registers(), SchemaType.PROTOBUF, schema != null ? schema : ProtoText.of(descriptor)));
        }
    }
}
