/**
 * Avro in the Confluent wire format: {@link io.switchboard.schemaregistry.avro.AvroCodec}. Needs {@code
 * org.apache.avro:avro} (1.12.x) on the application's class path.
 */
package io.switchboard.schemaregistry.avro;
