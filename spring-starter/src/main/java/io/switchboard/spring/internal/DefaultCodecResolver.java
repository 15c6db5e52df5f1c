package io.switchboard.spring.internal;

import io.switchboard.Codec;
import io.switchboard.SwitchboardException;
import io.switchboard.TypedCodec;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.InvalidSwitchboardPropertyException;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Locale;
import java.util.function.Function;

/**
 * The starter's codec choice: {@code switchboard.destinations.<name>.codec} when set, else by
 * payload type ({@code String} text, {@code byte[]} bytes, anything else JSON through the given
 * JSON codec factory).
 */
public final class DefaultCodecResolver implements CodecResolver {

    private final SwitchboardProperties properties;
    private final Function<Class<?>, Codec<?>> json;

    /**
     * Creates the resolver.
     *
     * @param properties the bound properties
     * @param json makes the JSON codec of a payload type
     */
    public DefaultCodecResolver(SwitchboardProperties properties, Function<Class<?>, Codec<?>> json) {
        this.properties = properties;
        this.json = json;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> Codec<T> codec(String destination, Class<T> payloadType) {
        Codec<T> codec = payloadCodec(destination, payloadType);
        String typeHeader = properties.destination(destination).getTypeHeader();
        if (typeHeader == null || typeHeader.isBlank() || !"application/json".equals(codec.contentType())) {
            return codec;
        }
        // the type id of each payload's class goes with it, as Spring's JsonSerializer writes it
        TypedCodec.Builder<Object> typed = TypedCodec.json().typeHeader(typeHeader.trim());
        if (payloadType != Object.class) {
            typed.type(payloadType.getName(), (Class<Object>) payloadType, (Codec<Object>) codec);
        }
        return (Codec<T>) typed.build();
    }

    /**
     * The codec of the payload type alone, without a type id: what a listener of that one type reads with.
     *
     * @param <T> the payload type
     * @param destination the destination
     * @param payloadType the payload class
     * @return the configured codec, or the one the payload type picks
     */
    @SuppressWarnings("unchecked")
    public <T> Codec<T> payloadCodec(String destination, Class<T> payloadType) {
        String configured = properties.destination(destination).getCodec();
        if (configured == null || configured.isBlank()) {
            if (payloadType == String.class) {
                return (Codec<T>) Codec.utf8();
            }
            if (payloadType == byte[].class) {
                return (Codec<T>) Codec.bytes();
            }
            return (Codec<T>) json.apply(payloadType);
        }
        String name = configured.trim().toLowerCase(Locale.ROOT);
        if (name.equals("json")) {
            return (Codec<T>) json.apply(payloadType);
        }
        try {
            return Codec.named(name, payloadType);
        } catch (SwitchboardException e) {
            throw new InvalidSwitchboardPropertyException("switchboard.destinations." + destination + ".codec", configured,
                    e.getMessage(), "Use json, string (String payloads) or bytes (byte[] payloads), or declare a "
                            + "CodecResolver bean for another format");
        }
    }
}
