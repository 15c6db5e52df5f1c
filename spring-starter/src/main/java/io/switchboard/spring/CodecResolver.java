package io.switchboard.spring;

import io.switchboard.Codec;

/**
 * Picks the codec of a destination's publishers and listeners. The starter's default honours
 * {@code switchboard.destinations.<name>.codec}, else picks by payload type: {@code String} as
 * UTF-8 text, {@code byte[]} as bytes, anything else JSON (through Spring Boot's Jackson 3
 * {@code JsonMapper} when the application has one, see {@code switchboard.json.use-boot-mapper}).
 * Declare a bean of this type to use another format (Avro, Protobuf).
 */
public interface CodecResolver {

    /**
     * {@return the codec for payloads of {@code payloadType} on {@code destination}}
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param payloadType the payload class
     * @throws InvalidSwitchboardPropertyException when the configured codec does not fit the type
     */
    <T> Codec<T> codec(String destination, Class<T> payloadType);
}
