/**
 * Protocol Buffers in the Confluent wire format: {@link io.switchboard.schemaregistry.protobuf.ProtobufCodec}. Needs
 * {@code com.google.protobuf:protobuf-java} (4.x) on the application's class path.
 */
package io.switchboard.schemaregistry.protobuf;
