package io.switchboard.schemaregistry.internal;

import io.switchboard.schemaregistry.SchemaRegistryClient;
import io.switchboard.schemaregistry.SchemaType;

/** A codec's writer schema and its registry id, registered (or looked up) on the first payload, then remembered. */
public final class WriterSchema {
    private final SchemaRegistryClient registry;
    private final String subject;
    private final boolean register;
    private final SchemaType type;
    private final String text;
    private volatile int id = -1;

    /**
     * Nothing is registered yet.
     *
     * @param registry the registry
     * @param subject the subject
     * @param register whether to register the schema (else look it up)
     * @param type the schema type
     * @param text the schema's text
     */
    public WriterSchema(SchemaRegistryClient registry, String subject, boolean register, SchemaType type, String text) {
        this.registry = registry;
        this.subject = subject;
        this.register = register;
        this.type = type;
        this.text = text;
    }

    /** {@return the schema's id: registered or looked up on the first call} */
    public int id() {
        int known = id;
        if (known < 0) {
            known = register ? registry.register(subject, type, text) : registry.lookup(subject, type, text);
            id = known;
        }
        return known;
    }

    /** {@return the subject} */
    public String subject() {
        return subject;
    }

    /** {@return the schema's text} */
    public String text() {
        return text;
    }
}
