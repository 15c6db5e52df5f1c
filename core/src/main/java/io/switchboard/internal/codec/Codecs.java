package io.switchboard.internal.codec;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.UnknownCodecException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** The built-in codecs. */
public final class Codecs {

    /** Bytes as they are. */
    public static final Codec<byte[]> BYTES = bytesAs("application/octet-stream");

    /**
     * {@return bytes as they are, labelled with {@code contentType}} (the outbox's relay sends payloads another codec
     * encoded when they were written, under that codec's content type)
     */
    public static Codec<byte[]> bytesAs(String contentType) {
        return new Codec<>() {
            @Override
            public byte[] encode(byte[] value) {
                return value;
            }

            @Override
            public byte[] decode(byte[] bytes) {
                return bytes;
            }

            @Override
            public String contentType() {
                return contentType;
            }
        };
    }

    /** Strict UTF-8 text: malformed input fails to decode instead of turning into replacement characters. */
    public static final Codec<String> UTF8 = new Codec<>() {
        @Override
        public byte[] encode(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes))
                        .toString();
            } catch (CharacterCodingException e) {
                throw new CodecException("Payload of " + bytes.length + " bytes is not valid UTF-8 text: " + e.getMessage(), e);
            }
        }

        @Override
        public String contentType() {
            return "text/plain; charset=utf-8";
        }
    };

    private static final ObjectMapper DEFAULT_MAPPER =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Codecs() {}

    /** The shared default mapper: no default typing, unknown properties ignored. */
    public static ObjectMapper defaultMapper() {
        return DEFAULT_MAPPER;
    }

    /** JSON through Jackson; reader and writer are resolved once, not per message. */
    public static <T> Codec<T> json(Class<T> type, ObjectMapper mapper) {
        ObjectReader reader = mapper.readerFor(type);
        ObjectWriter writer = mapper.writerFor(type);
        return new Codec<>() {
            @Override
            public byte[] encode(T value) {
                try {
                    return writer.writeValueAsBytes(value);
                } catch (IOException e) {
                    throw new CodecException("Cannot encode " + type.getName() + " as JSON: " + e.getMessage(), e);
                }
            }

            @Override
            public T decode(byte[] bytes) {
                try {
                    return reader.readValue(bytes);
                } catch (IOException e) {
                    throw new CodecException("Payload of " + bytes.length + " bytes is not valid JSON for "
                            + type.getName() + ": " + e.getMessage(), e);
                }
            }

            @Override
            public String contentType() {
                return "application/json";
            }

            @Override
            public String toString() {
                return "JsonCodec[" + type.getName() + "]";
            }
        };
    }

    /** A built-in codec by name. */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> named(String name, Class<T> type) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "bytes":
                requireType(name, type, byte[].class);
                return (Codec<T>) BYTES;
            case "string":
            case "utf8":
            case "text":
                requireType(name, type, String.class);
                return (Codec<T>) UTF8;
            case "json":
                return json(type, DEFAULT_MAPPER);
            default:
                throw new UnknownCodecException("No codec named '" + name + "'; built-in codecs are bytes, string and json. "
                        + "For another format pass your own Codec implementation");
        }
    }

    private static void requireType(String name, Class<?> type, Class<?> expected) {
        if (type != expected) {
            throw new CodecException("Codec '" + name + "' works on " + expected.getSimpleName() + " but was asked for "
                    + type.getName() + "; use codec 'json' for objects");
        }
    }
}
