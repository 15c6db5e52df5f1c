package io.switchboard.testkit;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.internal.DefaultPublisher;
import io.switchboard.internal.Telemetry;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The records core hands an adapter, made without a broker: for tests of an adapter's mapping of
 * {@link OutboundRecord}s to its client's messages, on records exactly as core makes them (the
 * envelope's id and time held as numbers, written as text only when read).
 */
public final class CoreRecords {

    private CoreRecords() {}

    /**
     * The record core's publisher makes of {@code message} for a broker with {@code capabilities}.
     *
     * @param <T> the payload type
     * @param capabilities the adapter's capabilities (whether it stamps the send time decides {@code ce_time})
     * @param properties the broker instance's properties, {@code switchboard.envelope} among them
     * @param codec the codec of the payload
     * @param message the message to publish
     * @return the record the adapter's {@code send} would get
     */
    public static <T> OutboundRecord published(Capabilities capabilities, Map<String, String> properties, Codec<T> codec,
            Message<T> message) {
        List<OutboundRecord> sent = new ArrayList<>(1);
        RawPublisher raw = new RawPublisher() {
            @Override
            public CompletableFuture<SendResult> send(OutboundRecord record) {
                sent.add(record);
                return CompletableFuture.completedFuture(SendResult.UNKNOWN);
            }

            @Override
            public void close() {}
        };
        try (DefaultPublisher<T> publisher = new DefaultPublisher<>(raw, new PublisherSpec("orders", Delivery.AT_LEAST_ONCE,
                Map.of()), codec, capabilities, new BrokerConfig("test", capabilities.brokerId(), properties),
                Telemetry.NONE, c -> { })) {
            publisher.send(message);
        }
        return sent.get(0);
    }
}
