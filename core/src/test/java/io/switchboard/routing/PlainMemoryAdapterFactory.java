package io.switchboard.routing;

import io.switchboard.internal.memory.MemoryAdapterFactory;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;

/**
 * Test adapter {@code plain-memory}: the memory broker declaring neither delayed delivery nor filtering, as a
 * third-party adapter without them would, so that routing's refusals can be tested on built-in brokers that all
 * have both.
 */
public final class PlainMemoryAdapterFactory implements BrokerAdapterFactory {

    @Override
    public String id() {
        return "plain-memory";
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        BrokerAdapter memory = new MemoryAdapterFactory().create(config);
        Capabilities caps = Capabilities.builder("plain-memory").orderingPerKey(true).broadcast(true)
                .maxMessageSize(memory.capabilities().maxMessageSize())
                .destinationNames(memory.capabilities().destinationNames()).build();
        return new BrokerAdapter() {
            @Override
            public Capabilities capabilities() {
                return caps;
            }

            @Override
            public RawPublisher createPublisher(PublisherSpec spec) {
                return memory.createPublisher(spec);
            }

            @Override
            public RawConsumer createConsumer(ConsumerSpec spec) {
                return memory.createConsumer(spec);
            }

            @Override
            public Provisioner provisioner() {
                return memory.provisioner();
            }

            @Override
            public void close() {
                memory.close();
            }
        };
    }
}
