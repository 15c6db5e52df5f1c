package io.switchboard.it;

import io.switchboard.kafka.KafkaAdapterFactory;
import io.switchboard.rabbit.RabbitAdapterFactory;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ClientThreads;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.PerformanceSetting;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Test adapters {@code held-kafka} and {@code held-rabbitmq}: the real Kafka and RabbitMQ adapters, except that each
 * record reaches core no earlier than {@code held.micros} after the time its payload carries (epoch microseconds as
 * text, written by the test's publisher just before it publishes). Where the broker's own leg is shorter than the hold,
 * every record's true end-to-end latency is the hold, whichever broker carried it: two brokers with the same true
 * latency, so that any end-to-end difference the verdict finds comes from how each broker's publish time is read.
 * A payload that is not a number passes at once.
 */
final class HeldAdapters {

    /** The instance property: how long after its payload's time a record reaches core, in microseconds. */
    static final String HOLD = "held.micros";

    private HeldAdapters() {}

    /** A factory of adapters {@code id}: {@code real}'s adapters, each wrapped by {@code wrap} (given its config). */
    abstract static class Wrapping implements BrokerAdapterFactory {
        private final String id;
        private final BrokerAdapterFactory real;
        private final BiFunction<BrokerAdapter, BrokerConfig, BrokerAdapter> wrap;

        Wrapping(String id, BrokerAdapterFactory real, BiFunction<BrokerAdapter, BrokerConfig, BrokerAdapter> wrap) {
            this.id = id;
            this.real = real;
            this.wrap = wrap;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public BrokerAdapter create(BrokerConfig config) {
            return wrap.apply(real.create(config), config);
        }
    }

    /** {@code held-kafka}. */
    public static final class Kafka extends Wrapping {
        public Kafka() {
            super("held-kafka", new KafkaAdapterFactory(), (adapter, config) -> held(adapter, config.getLong(HOLD, 0)));
        }
    }

    /** {@code held-rabbitmq}. */
    public static final class Rabbit extends Wrapping {
        public Rabbit() {
            super("held-rabbitmq", new RabbitAdapterFactory(), (adapter, config) -> held(adapter, config.getLong(HOLD, 0)));
        }
    }

    private static BrokerAdapter held(BrokerAdapter adapter, long holdMicros) {
        return beforeEachRecord(adapter, record -> hold(record, holdMicros));
    }

    /**
     * {@return {@code adapter}, except that its consumers' delivery threads run {@code hook} on each record before core
     * gets it} What the hook waits, core's end-to-end latency counts. ({@link StalledAdapters} stalls with it.)
     */
    static BrokerAdapter beforeEachRecord(BrokerAdapter adapter, Consumer<InboundRecord> hook) {
        return new Held(adapter, hook);
    }

    /** The adapter, its consumers' records passed through the hook. */
    private record Held(BrokerAdapter adapter, Consumer<InboundRecord> hook) implements BrokerAdapter {
        @Override
        public String id() {
            return adapter.id();
        }

        @Override
        public Capabilities capabilities() {
            return adapter.capabilities();
        }

        @Override
        public RawPublisher createPublisher(PublisherSpec spec) {
            return adapter.createPublisher(spec);
        }

        @Override
        public RawConsumer createConsumer(ConsumerSpec spec) {
            return new HeldConsumer(adapter.createConsumer(spec), hook);
        }

        @Override
        public Provisioner provisioner() {
            return adapter.provisioner();
        }

        @Override
        public BrokerHealth health(Duration timeout) {
            return adapter.health(timeout);
        }

        @Override
        public List<PerformanceSetting> performanceSettings() {
            return adapter.performanceSettings();
        }

        @Override
        public ClientThreads clientThreads() {
            return adapter.clientThreads();
        }

        @Override
        public Optional<ControlSupport> control() {
            return adapter.control();
        }

        @Override
        public void close() {
            adapter.close();
        }
    }

    private record HeldConsumer(RawConsumer consumer, Consumer<InboundRecord> hook) implements RawConsumer {
        @Override
        public CompletionStage<Void> start(RecordListener listener) {
            return consumer.start(new RecordListener() {
                @Override
                public void onRecord(InboundRecord record) {
                    hook.accept(record);
                    listener.onRecord(record);
                }

                @Override
                public void onHandoffEnd() {
                    listener.onHandoffEnd();
                }

                @Override
                public void onFailure(Throwable error) {
                    listener.onFailure(error);
                }

                @Override
                public void onFiltered() {
                    listener.onFiltered();
                }
            });
        }

        @Override
        public void stop() {
            consumer.stop();
        }

        @Override
        public void close() {
            consumer.close();
        }

        @Override
        public boolean handleOnDeliveryThreads(int concurrency) {
            return consumer.handleOnDeliveryThreads(concurrency);
        }

        @Override
        public boolean endsHandoffs() {
            return consumer.endsHandoffs();
        }

        @Override
        public void ackInOrder(List<? extends InboundRecord> records) {
            consumer.ackInOrder(records);
        }

        @Override
        public OptionalLong backlog() {
            return consumer.backlog();
        }
    }

    /** Waits (at most the hold) until the payload's time plus the hold. */
    private static void hold(InboundRecord record, long holdMicros) {
        long sent;
        try {
            sent = Long.parseLong(new String(record.payload(), StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return;
        }
        long until = sent + holdMicros;
        for (long left = until - nowMicros(); left > 0 && left <= holdMicros; left = until - nowMicros()) {
            LockSupport.parkNanos(left * 1000);
        }
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }
}
