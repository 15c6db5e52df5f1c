package io.switchboard.internal.memory;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationNameRule;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import java.time.Duration;
import java.util.Set;

/** The in-memory adapter: a view of one named {@link MemoryBroker}. */
final class MemoryAdapter implements BrokerAdapter {

    private final MemoryBroker broker;
    private final String brokerName;
    private final String instance;
    private final Capabilities capabilities;
    private final long publishTimeoutNanos;
    private final java.util.List<AutoCloseable> controlOwned = new java.util.concurrent.CopyOnWriteArrayList<>();

    MemoryAdapter(BrokerConfig config) {
        int capacity = config.getInt("memory.capacity", 100_000);
        if (capacity < 1) {
            throw new io.switchboard.ConfigurationException("memory.capacity must be at least 1 but was " + capacity);
        }
        this.brokerName = config.get("memory.broker", "default");
        this.instance = config.instanceName();
        this.broker = MemoryBroker.named(brokerName, capacity);
        this.publishTimeoutNanos = config.getDuration("memory.publish-timeout", Duration.ofSeconds(5)).toNanos();
        this.capabilities = Capabilities.builder(MemoryAdapterFactory.ID)
                .orderingPerKey(true)
                .broadcast(true)
                .delayedDelivery(true)
                .filtering(true)
                .replay(true)
                .startPositions(java.util.EnumSet.allOf(io.switchboard.StartPosition.Kind.class),
                        java.util.EnumSet.allOf(io.switchboard.StartPosition.Kind.class), "")
                .maxMessageSize(config.getInt("memory.max-message-size", 1024 * 1024))
                .destinationNames(DestinationNameRule.of("[a-zA-Z0-9._-]+", 249,
                        "letters, digits, '.', '_' and '-' (at most 249 characters)", Set.of(".", ".."), Set.of()))
                .build();
    }

    @Override
    public String id() {
        return MemoryAdapterFactory.ID;
    }

    @Override
    public io.switchboard.spi.ClientThreads clientThreads() {
        String dispatchers = "switchboard-memory[" + instance + "]-";
        return io.switchboard.spi.ClientThreads.named(name -> name.startsWith(dispatchers));
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public RawPublisher createPublisher(PublisherSpec spec) {
        return new MemoryPublisher(broker, spec.destination(), publishTimeoutNanos);
    }

    @Override
    public RawConsumer createConsumer(ConsumerSpec spec) {
        return new MemoryConsumer(broker.topic(spec.destination()), spec, instance);
    }

    @Override
    public Provisioner provisioner() {
        return new Provisioner() {
            @Override
            public void ensureDestination(DestinationSpec spec) {
                broker.ensureTopic(spec.name(), spec.partitions());
            }

            @Override
            public void deleteDestination(String name) {
                broker.deleteTopic(name);
            }
        };
    }

    @Override
    public BrokerHealth health(Duration timeout) {
        return BrokerHealth.up("in-memory broker '" + brokerName + "' in this JVM");
    }

    @Override
    public java.util.Optional<io.switchboard.spi.ControlSupport> control() {
        return java.util.Optional.of(broker.control().support(controlOwned));
    }

    @Override
    public void close() {
        // the broker outlives adapters, as a real broker outlives its clients; a closing client's logs and campaigns end
        for (AutoCloseable c : controlOwned) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort, as a dying process
            }
        }
        controlOwned.clear();
    }
}
