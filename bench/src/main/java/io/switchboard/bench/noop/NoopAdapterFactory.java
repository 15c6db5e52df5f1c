package io.switchboard.bench.noop;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;

/**
 * A do-nothing adapter (id {@code noop}) for measuring core's own cost: every send completes at
 * once with the same future and nothing is stored; consumers fetch nothing, a benchmark hands them
 * records ({@link NoopConsumers}).
 */
public final class NoopAdapterFactory implements BrokerAdapterFactory {

    /** The adapter id. */
    public static final String ID = "noop";

    /** The shared, already-completed result of every send. */
    public static final CompletableFuture<SendResult> DONE = CompletableFuture.completedFuture(new SendResult(0, 0));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        Capabilities capabilities = Capabilities.builder(ID).maxMessageSize(16 * 1024 * 1024).build();
        RawPublisher publisher = new RawPublisher() {
            @Override
            public CompletableFuture<SendResult> send(io.switchboard.spi.OutboundRecord record) {
                return DONE;
            }

            @Override
            public void close() {}
        };
        return new BrokerAdapter() {
            @Override
            public String id() {
                return ID;
            }

            @Override
            public Capabilities capabilities() {
                return capabilities;
            }

            @Override
            public RawPublisher createPublisher(PublisherSpec spec) {
                return publisher;
            }

            @Override
            public RawConsumer createConsumer(ConsumerSpec spec) {
                return NoopConsumers.create(spec);
            }

            @Override
            public Provisioner provisioner() {
                return new Provisioner() {
                    @Override
                    public void ensureDestination(DestinationSpec spec) {}

                    @Override
                    public void deleteDestination(String name) {}
                };
            }

            @Override
            public void close() {}
        };
    }
}
