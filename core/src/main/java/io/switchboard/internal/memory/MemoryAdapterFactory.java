package io.switchboard.internal.memory;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;

/**
 * Factory of the in-memory broker, adapter id {@code memory}.
 *
 * <p>Properties: {@code memory.broker} (name of the in-process broker; Switchboards using the same
 * name share topics, default {@code default}), {@code memory.capacity} (unconsumed messages kept per
 * destination before publishers wait, default 100000), {@code memory.publish-timeout} (how long a
 * publisher waits for space, default 5s), {@code memory.max-message-size} (bytes, default 1048576).
 */
public final class MemoryAdapterFactory implements BrokerAdapterFactory {

    /** The adapter id. */
    public static final String ID = "memory";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        return new MemoryAdapter(config);
    }
}
