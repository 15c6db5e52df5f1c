package io.switchboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.internal.codec.Codecs;

/**
 * Turns payloads into bytes and back. Implementations are thread-safe and stateless per call.
 *
 * <p>Built in: {@link #bytes()}, {@link #utf8()} and {@link #json(Class)} (Jackson, no default
 * typing, no Java serialization). Plug in another format by implementing this interface.
 *
 * @param <T> payload type
 */
public interface Codec<T> {

    /**
     * Encodes a non-null value; throws {@link CodecException} when it cannot.
     *
     * @param value the value, not null
     * @return the encoded bytes
     */
    byte[] encode(T value);

    /**
     * Decodes bytes; throws {@link CodecException} when they are not a valid payload.
     *
     * @param bytes the encoded payload
     * @return the value
     */
    T decode(byte[] bytes);

    /** {@return the content type written to the envelope, e.g. {@code application/json}} */
    String contentType();

    /** {@return the codec of bytes as they are ({@code application/octet-stream})} */
    static Codec<byte[]> bytes() {
        return Codecs.BYTES;
    }

    /** {@return the codec of UTF-8 text ({@code text/plain; charset=utf-8})} */
    static Codec<String> utf8() {
        return Codecs.UTF8;
    }

    /**
     * {@return a codec of JSON through a default Jackson {@link ObjectMapper} (unknown properties ignored)}
     *
     * @param <T> the payload type
     * @param type the class payloads are read into
     */
    static <T> Codec<T> json(Class<T> type) {
        return Codecs.json(type, Codecs.defaultMapper());
    }

    /**
     * {@return a codec of JSON through the given mapper}
     *
     * @param <T> the payload type
     * @param type the class payloads are read into
     * @param mapper the Jackson mapper to write and read with
     */
    static <T> Codec<T> json(Class<T> type, ObjectMapper mapper) {
        return Codecs.json(type, mapper);
    }

    /**
     * {@return a built-in codec by name: {@code bytes}, {@code string} (or {@code utf8}, {@code text}) or {@code
     * json}, for configuration files}
     *
     * @param <T> the payload type
     * @param name the codec's name
     * @param type the payload class
     * @throws UnknownCodecException for any other name, listing the known ones
     * @throws CodecException when the type does not fit the codec (for example {@code string} for a non-String type)
     */
    static <T> Codec<T> named(String name, Class<T> type) {
        return Codecs.named(name, type);
    }
}
