package io.switchboard.spi;

import java.util.Map;
import java.util.Objects;

/**
 * A destination to create.
 *
 * @param name the validated destination name
 * @param partitions partitions (Kafka), queues (RocketMQ) or partition queues (RabbitMQ partitioned
 *     destinations); at least 1
 * @param settings broker-specific settings (replication factor, topic configs, queue type, ...)
 */
public record DestinationSpec(String name, int partitions, Map<String, String> settings) {

    /**
     * Checks the components and copies the settings.
     *
     * @param name the destination's name
     * @param partitions its partitions (or queues), at least 1
     * @param settings broker-specific settings
     */
    public DestinationSpec {
        Objects.requireNonNull(name, "name");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1 but was " + partitions);
        }
        settings = Map.copyOf(settings);
    }

    /**
     * {@return a destination with the given partitions and no extra settings}
     *
     * @param name the destination's name
     * @param partitions its partitions (or queues), at least 1
     */
    public static DestinationSpec of(String name, int partitions) {
        return new DestinationSpec(name, partitions, Map.of());
    }
}
