package io.switchboard.spring.internal;

import io.switchboard.Codec;
import io.switchboard.CodecException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;

/**
 * JSON through Spring Boot's Jackson 3 mapper, so {@code spring.jackson.*} and the application's
 * Jackson modules apply to payloads. Reader and writer are resolved once, not per message.
 *
 * @param <T> payload type
 */
public final class Jackson3JsonCodec<T> implements Codec<T> {

    private final Class<T> type;
    private final ObjectReader reader;
    private final ObjectWriter writer;

    /** A codec for {@code type} through {@code mapper}. */
    public Jackson3JsonCodec(Class<T> type, ObjectMapper mapper) {
        this.type = type;
        this.reader = mapper.readerFor(type);
        this.writer = mapper.writerFor(type);
    }

    @Override
    public byte[] encode(T value) {
        try {
            return writer.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new CodecException("Cannot encode " + type.getName() + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public T decode(byte[] bytes) {
        try {
            return reader.readValue(bytes);
        } catch (JacksonException e) {
            throw new CodecException("Payload of " + bytes.length + " bytes is not valid JSON for " + type.getName()
                    + ": " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public String contentType() {
        return "application/json";
    }

    @Override
    public String toString() {
        return "Jackson3JsonCodec[" + type.getName() + "]";
    }
}
