package io.switchboard.schemaregistry.internal;

import io.switchboard.CodecException;
import java.io.ByteArrayOutputStream;
import java.util.Objects;

/**
 * The Confluent wire format's frame: byte 0 the magic byte {@code 0x00}, bytes 1-4 the schema id (big-endian), then
 * the format's bytes.
 */
public final class WireFormat {
    /** The frame's length before the format's bytes. */
    public static final int HEADER = 5;
    private static final byte MAGIC = 0;

    private WireFormat() {}

    /**
     * {@return a stream that starts with the frame of the schema id}
     *
     * @param schemaId the schema's id in the registry
     */
    public static ByteArrayOutputStream start(int schemaId) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(MAGIC);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
        return out;
    }

    /**
     * {@return the schema id of a payload in the wire format}
     *
     * @param bytes the payload
     * @param format the format's name, for the message ("Avro", "Protobuf")
     * @throws CodecException when the payload is shorter than the frame or does not start with the magic byte
     */
    public static int schemaId(byte[] bytes, String format) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < HEADER || bytes[0] != MAGIC) {
            throw new CodecException("Payload of " + bytes.length + " bytes starting with " + hex(bytes)
                    + " is not " + format + " in the Confluent wire format (magic byte 0x00, a 4-byte schema id, then the "
                    + "data); check that the producer uses a schema-registry serializer (KafkaAvroSerializer, "
                    + "KafkaProtobufSerializer) or this codec");
        }
        return (bytes[1] & 0xff) << 24 | (bytes[2] & 0xff) << 16 | (bytes[3] & 0xff) << 8 | bytes[4] & 0xff;
    }

    private static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder("0x");
        for (int i = 0; i < Math.min(bytes.length, 8); i++) {
            s.append(String.format("%02x", bytes[i] & 0xff));
        }
        return bytes.length == 0 ? "nothing" : s.append(bytes.length > 8 ? "..." : "").toString();
    }
}
