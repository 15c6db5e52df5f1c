package io.switchboard.schemaregistry;

/**
 * The subject a destination's value schemas are registered under.
 *
 * <p>The default, {@link #topicName()}, is Confluent's {@code TopicNameStrategy} for record values: {@code
 * <destination>-value}, so a codec registers and finds the same subject as a {@code KafkaAvroSerializer} or {@code
 * KafkaProtobufSerializer} neighbour on that topic.
 */
@FunctionalInterface
public interface SubjectNaming {

    /**
     * {@return the subject of the destination's values}
     *
     * @param destination the destination (the Kafka topic)
     */
    String subject(String destination);

    /** {@return Confluent's TopicNameStrategy for values: {@code <destination>-value}} */
    static SubjectNaming topicName() {
        return destination -> destination + "-value";
    }
}
