package io.switchboard.schemaregistry;

import java.util.Objects;

/**
 * What the builders of the registry's codecs share: the subject the codec's schema is registered under, and whether
 * it is registered or only looked up.
 *
 * @param <B> the builder's own type
 */
public abstract class CodecBuilder<B extends CodecBuilder<B>> {
    private final SchemaRegistryClient registry;
    private String destination;
    private String subject;
    private SubjectNaming naming = SubjectNaming.topicName();
    private boolean register = true;

    /**
     * With the registry the codec uses.
     *
     * @param registry the registry client
     */
    protected CodecBuilder(SchemaRegistryClient registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * Sets the destination (the Kafka topic) whose subject the schema is registered under, named by {@link
     * #subjectNaming(SubjectNaming)}: {@code <destination>-value} unless set.
     *
     * @param destination the destination
     * @return this builder
     */
    public B destination(String destination) {
        this.destination = Objects.requireNonNull(destination, "destination");
        return self();
    }

    /**
     * Sets the subject itself, instead of naming it after the destination.
     *
     * @param subject the subject
     * @return this builder
     */
    public B subject(String subject) {
        this.subject = Objects.requireNonNull(subject, "subject");
        return self();
    }

    /**
     * Sets how the destination's subject is named; {@link SubjectNaming#topicName()} unless set.
     *
     * @param naming the subject naming
     * @return this builder
     */
    public B subjectNaming(SubjectNaming naming) {
        this.naming = Objects.requireNonNull(naming, "naming");
        return self();
    }

    /**
     * Whether the first payload registers the schema under the subject (the default, like Confluent's {@code
     * auto.register.schemas}) or only looks up its id, failing when the subject does not have it.
     *
     * @param register false to look up only
     * @return this builder
     */
    public B autoRegister(boolean register) {
        this.register = register;
        return self();
    }

    /** {@return the registry client} */
    protected SchemaRegistryClient registry() {
        return registry;
    }

    /** {@return whether the schema is registered (true) or only looked up} */
    protected boolean registers() {
        return register;
    }

    /**
     * {@return the subject: the one set, or the naming's subject of the destination}
     *
     * @param codec the codec's description, for the message
     * @throws IllegalStateException when neither a subject nor a destination is set
     */
    protected String resolvedSubject(String codec) {
        if (subject != null) {
            return subject;
        }
        if (destination == null) {
            throw new IllegalStateException(codec + " has no subject to register its schema under; call destination(\"orders\")"
                    + " (subject orders-value, Confluent's TopicNameStrategy) or subject(\"...\") on its builder");
        }
        String named = naming.subject(destination);
        if (named == null || named.isBlank()) {
            throw new IllegalStateException(codec + "'s subject naming gave no subject for destination '" + destination
                    + "'; return a subject such as '" + destination + "-value'");
        }
        return named;
    }
}
