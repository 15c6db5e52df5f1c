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

    /** {@code held-kafka}. */
    public static final class Kafka implements BrokerAdapterFactory {
        @Override
        public String id() {
            return "held-kafka";
        }

        @Override
        public BrokerAdapter create(BrokerConfig config) {
            return new Held(new KafkaAdapterFactory().create(config), config.getLong(HOLD, 0));
        }
    }

    /** {@code held-rabbitmq}. */
    public static final class Rabbit implements BrokerAdapterFactory {
        @Override
        public String id() {
            return "held-rabbitmq";
        }

        @Override
        public BrokerAdapter create(BrokerConfig config) {
            return new Held(new RabbitAdapterFactory().create(config), config.getLong(HOLD, 0));
        }
    }

    /** The adapter, its consumers' records held. */
    private record Held(BrokerAdapter adapter, long holdMicros) implements BrokerAdapter {
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
            return new HeldConsumer(adapter.createConsumer(spec), holdMicros);
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

    private record HeldConsumer(RawConsumer consumer, long holdMicros) implements RawConsumer {
        @Override
        public CompletionStage<Void> start(RecordListener listener) {
            return consumer.start(new RecordListener() {
                @Override
                public void onRecord(InboundRecord record) {
                    hold(record);
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

        /** Waits (at most the hold) until the payload's time plus the hold. */
        private void hold(InboundRecord record) {
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

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }
}
