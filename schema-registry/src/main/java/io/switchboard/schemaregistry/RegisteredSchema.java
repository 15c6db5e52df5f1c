package io.switchboard.schemaregistry;

import java.util.Objects;

/**
 * A schema as the registry holds it under its id.
 *
 * @param id the registry's id of the schema, the one the wire format carries
 * @param type the schema's format
 * @param schema the schema's text (Avro JSON or a {@code .proto} file)
 */
public record RegisteredSchema(int id, SchemaType type, String schema) {

    /**
     * Checks the fields.
     *
     * @param id the registry's id of the schema
     * @param type the schema's format
     * @param schema the schema's text
     */
    public RegisteredSchema {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(schema, "schema");
    }
}
