package io.switchboard.routing;

import io.switchboard.Switchboard;
import java.util.Map;
import java.util.UUID;

/** Switchboards on two in-process memory brokers of their own, instances {@code a} and {@code b}. */
final class TwoMemoryBrokers {

    private TwoMemoryBrokers() {}

    /** {@return a builder with instances a and b, each on a memory broker no other test shares} */
    static Switchboard.Builder builder() {
        String run = UUID.randomUUID().toString();
        return Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "a-" + run))
                .instance("b", "memory", Map.of("memory.broker", "b-" + run));
    }
}
