package io.switchboard.bench.noop;

import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The noop adapter's consumers: they fetch nothing; a benchmark hands records straight to the
 * listener core registered ({@link #listener}), so that only core's consume path is measured.
 */
public final class NoopConsumers {

    private static final Map<String, RecordListener> LISTENERS = new ConcurrentHashMap<>();

    private NoopConsumers() {}

    /** The listener of the subscription to {@code destination} in {@code group}, once it started. */
    public static RecordListener listener(String destination, String group) {
        return LISTENERS.get(destination + "/" + group);
    }

    static RawConsumer create(ConsumerSpec spec) {
        String name = spec.destination() + "/" + spec.group();
        return new RawConsumer() {
            @Override
            public CompletionStage<Void> start(RecordListener listener) {
                LISTENERS.put(name, listener);
                return CompletableFuture.completedFuture(null);
            }

            /** The benchmark's thread may run the handler: it hands records over one at a time, in order. */
            @Override
            public boolean handleOnDeliveryThreads(int concurrency) {
                return true;
            }

            @Override
            public void stop() {
                LISTENERS.remove(name);
            }

            @Override
            public void close() {
                LISTENERS.remove(name);
            }
        };
    }
}
