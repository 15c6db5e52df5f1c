package io.switchboard.schemaregistry.avro;

import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.schemaregistry.CodecBuilder;
import io.switchboard.schemaregistry.RegisteredSchema;
import io.switchboard.schemaregistry.SchemaRegistryClient;
import io.switchboard.schemaregistry.SchemaType;
import io.switchboard.schemaregistry.internal.WireFormat;
import io.switchboard.schemaregistry.internal.WriterSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Avro records in the Confluent wire format: the magic byte {@code 0x00}, the writer schema's registry id (4 bytes,
 * big-endian), then the record's Avro binary encoding; what {@code KafkaAvroSerializer} writes and {@code
 * KafkaAvroDeserializer} reads.
 *
 * <p>Encoding registers the codec's schema under its subject once (or only looks it up, {@link
 * Builder#autoRegister(boolean)}), on the first payload. Decoding fetches the writer's schema by the payload's id
 * once per id and resolves it to the codec's schema, Avro's schema evolution: a field the reader added is filled from
 * its default, one the writer had and the reader dropped is skipped. A payload that is not in the wire format, or
 * whose schema id the registry does not know, fails with a {@link CodecException}, so it goes to the dead-letter
 * destination. Thread-safe.
 *
 * <pre>{@code
 * Codec<GenericRecord> codec = AvroCodec.generic(registry, schema).destination("orders").build();
 * Codec<Order> codec = AvroCodec.specific(registry, Order.class).destination("orders").build();
 * }</pre>
 *
 * @param <T> the record type: {@link GenericRecord} or a generated {@link SpecificRecord} class
 */
public final class AvroCodec<T extends IndexedRecord> implements Codec<T> {
    /** The content type written to the envelope. */
    public static final String CONTENT_TYPE = "application/avro";

    private final SchemaRegistryClient registry;
    private final Schema schema;
    private final WriterSchema writerSchema;
    private final Class<T> type;
    private final GenericData data;
    private final DatumWriter<T> writer;
    private final Map<Integer, DatumReader<T>> readers = new ConcurrentHashMap<>();

    private AvroCodec(Builder<T> b, SchemaRegistryClient registry, WriterSchema writerSchema) {
        this.registry = registry;
        this.schema = b.schema;
        this.writerSchema = writerSchema;
        this.type = b.type;
        // a generated class's own model (MODEL$) carries the conversions of its logical types
        this.data = b.specific ? SpecificData.getForClass(b.type) : GenericData.get();
        this.writer = b.specific ? new SpecificDatumWriter<>(schema, (SpecificData) data) : new GenericDatumWriter<>(schema, data);
    }

    /**
     * {@return a builder of a codec of generic records of the schema, which is both the schema registered and
     * written, and the one payloads are read into}
     *
     * @param registry the registry client
     * @param schema a record schema
     */
    public static Builder<GenericRecord> generic(SchemaRegistryClient registry, Schema schema) {
        Objects.requireNonNull(schema, "schema");
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("AvroCodec needs a record schema, not " + schema.getType() + " ("
                    + schema + "); wrap the value in a record");
        }
        return new Builder<>(registry, schema, GenericRecord.class, false);
    }

    /**
     * {@return a builder of a codec of a generated {@link SpecificRecord} class, its schema ({@code SCHEMA$}) registered
     * and written, and payloads read into it}
     *
     * @param <T> the record class
     * @param registry the registry client
     * @param type the class avro-maven-plugin or avro-tools generated
     */
    public static <T extends SpecificRecord> Builder<T> specific(SchemaRegistryClient registry, Class<T> type) {
        Objects.requireNonNull(type, "type");
        Schema schema;
        try {
            schema = SpecificData.getForClass(type).getSchema(type);
        } catch (AvroRuntimeException e) {
            throw new IllegalArgumentException("Class " + type.getName() + " has no Avro schema (a static SCHEMA$ field); "
                    + "give a class generated from the schema by avro-maven-plugin or avro-tools", e);
        }
        return new Builder<>(registry, schema, type, true);
    }

    /** {@return the subject the codec's schema is registered under} */
    public String subject() {
        return writerSchema.subject();
    }

    /** {@return the schema written, and the one payloads are read into} */
    public Schema schema() {
        return schema;
    }

    @Override
    public byte[] encode(T value) {
        Objects.requireNonNull(value, "value");
        if (!type.isInstance(value) || !schema.equals(value.getSchema())) {
            throw new CodecException("Cannot encode " + value.getClass().getName() + " of schema "
                    + value.getSchema().getFullName() + " with the AvroCodec of " + schema.getFullName() + " (subject '"
                    + subject() + "'); build the record with the codec's schema, or use a codec of the record's schema");
        }
        ByteArrayOutputStream out = WireFormat.start(writerSchema.id());
        try {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            writer.write(value, encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            throw new CodecException("Cannot encode " + schema.getFullName() + " record for subject '" + subject() + "': " + e
                    .getMessage() + "; set every field the schema requires, with a value of the field's type", e);
        }
        return out.toByteArray();
    }

    @Override
    public T decode(byte[] bytes) {
        int id = WireFormat.schemaId(bytes, "Avro");
        DatumReader<T> reader = readers.get(id);
        if (reader == null) {
            reader = readerOf(id);
            readers.put(id, reader);
        }
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, WireFormat.HEADER,
                    bytes.length - WireFormat.HEADER, null);
            return reader.read(null, decoder);
        } catch (IOException | RuntimeException e) {
            throw new CodecException("Cannot decode " + bytes.length + "-byte Avro payload of schema id " + id + " into "
                    + schema.getFullName() + ": " + e + "; check that the producer wrote it with schema id " + id
                    + " and that the schema can be read as " + schema.getFullName() + " (a field added without a default"
                    + " cannot be)", e);
        }
    }

    private DatumReader<T> readerOf(int id) {
        RegisteredSchema registered = registry.schema(id);
        if (registered.type() != SchemaType.AVRO) {
            throw new CodecException("Schema id " + id + " in " + registry.baseUrl() + " is a " + registered.type()
                    + " schema, not Avro; read this destination with the codec of that format");
        }
        Schema written;
        try {
            written = new Schema.Parser().parse(registered.schema());
        } catch (SchemaParseException e) {
            throw new CodecException("Schema id " + id + " in " + registry.baseUrl() + " is not an Avro schema Avro "
                    + "can parse: " + e.getMessage() + "; fix the schema in the registry", e);
        }
        return data instanceof SpecificData specific ? new SpecificDatumReader<>(written, schema, specific)
                : new GenericDatumReader<>(written, schema, data);
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }

    @Override
    public String toString() {
        return "AvroCodec[" + schema.getFullName() + ", subject '" + subject() + "', " + registry + "]";
    }

    /**
     * Builds an {@link AvroCodec}.
     *
     * @param <T> the record type
     */
    public static final class Builder<T extends IndexedRecord> extends CodecBuilder<Builder<T>> {
        private final Schema schema;
        private final Class<T> type;
        private final boolean specific;

        private Builder(SchemaRegistryClient registry, Schema schema, Class<T> type, boolean specific) {
            super(registry);
            this.schema = schema;
            this.type = type;
            this.specific = specific;
        }

        /**
         * {@return the codec}
         *
         * @throws IllegalStateException when neither a destination nor a subject is set
         */
        public AvroCodec<T> build() {
            return new AvroCodec<>(this, registry(), new WriterSchema(registry(), resolvedSubject("AvroCodec of "
                    + schema.getFullName()), registers(), SchemaType.AVRO, schema.toString()));
        }
    }
}
