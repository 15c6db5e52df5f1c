package io.switchboard.bench.noop;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;

/**
 * A do-nothing adapter (id {@code noop}) for measuring core's own cost: every send completes at
 * once with the same future, or some sends later ({@value #ACK}), and nothing is stored beyond the
 * last records (so that records escape, as into any real client); consumers fetch nothing, a benchmark hands them
 * records ({@link NoopConsumers}).
 */
public final class NoopAdapterFactory implements BrokerAdapterFactory {

    /** The adapter id. */
    public static final String ID = "noop";

    /**
     * Property: when a send is acknowledged. {@value #NOW} (the default): within the send, with
     * {@link #DONE}. {@value #LATER}: with a new future per send, completed {@value #LATER_BY} sends
     * later on the sending thread, as a real client's callback completes it after the send returned
     * (the layers above then take their callback path). For one sending thread.
     */
    public static final String ACK = "noop.ack";
    /** {@link #ACK}: within the send. */
    public static final String NOW = "now";
    /** {@link #ACK}: some sends later. */
    public static final String LATER = "later";
    /** How many sends later a {@link #LATER} acknowledgement comes. */
    public static final int LATER_BY = 64;

    /** The shared, already-completed result of every send. */
    public static final CompletableFuture<SendResult> DONE = CompletableFuture.completedFuture(new SendResult(0, 0));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        Capabilities capabilities = Capabilities.builder(ID).maxMessageSize(16 * 1024 * 1024).build();
        RawPublisher publisher = LATER.equals(config.get(ACK, NOW)) ? new Later() : new Now();
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

    /** Acknowledges within the send. */
    private static final class Now implements RawPublisher {
        /**
         * Where the record goes: a field nobody reads, so that the record escapes as it does into any real
         * client. Without it the JIT may find that nothing reads the record and leave out the record and its
         * headers altogether (measured: 0 B/op on some iterations, 112 B/op on others).
         */
        private OutboundRecord taken;

        @Override
        public CompletableFuture<SendResult> send(OutboundRecord record) {
            taken = record;
            return DONE;
        }

        @Override
        public void close() {}
    }

    /** Acknowledges {@link #LATER_BY} sends later: each send completes the future of the send that many before it. */
    private static final class Later implements RawPublisher {
        private static final SendResult RESULT = new SendResult(0, 0);
        private final OutboundRecord[] records = new OutboundRecord[LATER_BY];
        @SuppressWarnings("unchecked")
        private final CompletableFuture<SendResult>[] pending = new CompletableFuture[LATER_BY];
        private int next;

        @Override
        public CompletableFuture<SendResult> send(OutboundRecord record) {
            CompletableFuture<SendResult> sent = new CompletableFuture<>();
            int slot = next++ & (LATER_BY - 1);
            CompletableFuture<SendResult> due = pending[slot];
            pending[slot] = sent;
            records[slot] = record; // held until acknowledged, as a client holds it
            if (due != null) {
                due.complete(RESULT);
            }
            return sent;
        }

        @Override
        public void close() {
            for (CompletableFuture<SendResult> f : pending) {
                if (f != null) {
                    f.complete(RESULT);
                }
            }
        }
    }
}
