package io.switchboard.internal.memory;

import java.util.concurrent.ConcurrentHashMap;

/** A named in-process broker holding topics. Lives as long as the JVM, like a broker outlives clients. */
final class MemoryBroker {

    private static final ConcurrentHashMap<String, MemoryBroker> BROKERS = new ConcurrentHashMap<>();
    private static final int DEFAULT_PARTITIONS = 4;

    private final ConcurrentHashMap<String, MemoryTopic> topics = new ConcurrentHashMap<>();
    private final int capacity;
    private final MemoryControl control = new MemoryControl();

    private MemoryBroker(int capacity) {
        this.capacity = capacity;
    }

    static MemoryBroker named(String name, int capacity) {
        return BROKERS.computeIfAbsent(name, n -> new MemoryBroker(capacity));
    }

    MemoryControl control() {
        return control;
    }

    MemoryTopic ensureTopic(String name, int partitions) {
        return topics.computeIfAbsent(name, n -> new MemoryTopic(n, partitions, capacity));
    }

    /** The topic, created with default partitions on first use (like auto-created Kafka topics). */
    MemoryTopic topic(String name) {
        return ensureTopic(name, DEFAULT_PARTITIONS);
    }

    void deleteTopic(String name) {
        MemoryTopic topic = topics.remove(name);
        if (topic != null) {
            topic.delete();
        }
    }
}
