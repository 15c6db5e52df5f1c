/**
 * A client of the Confluent Schema Registry REST API ({@link io.switchboard.schemaregistry.SchemaRegistryClient}),
 * also served by Apicurio Registry's {@code /apis/ccompat/v7}, and the subject naming of Confluent's serializers
 * ({@link io.switchboard.schemaregistry.SubjectNaming}). The codecs are in {@code .avro} and {@code .protobuf}.
 */
package io.switchboard.schemaregistry;
