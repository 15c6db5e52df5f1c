package io.switchboard.schemaregistry;

/** The schema formats the registry client registers and fetches (the REST API's {@code schemaType}). */
public enum SchemaType {
    /** Apache Avro, the registry's default when a request or answer names no type. */
    AVRO,
    /** Protocol Buffers, a {@code .proto} file's text. */
    PROTOBUF
}
