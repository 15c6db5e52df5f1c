package io.switchboard.testkit;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The behaviour every adapter must show, run against a real broker. An adapter's test is a
 * subclass that names the adapter and supplies its broker's properties:
 *
 * <pre>{@code
 * class KafkaContractTest extends BrokerContract {
 *     protected String brokerId() { return "kafka"; }
 *     protected Map<String, String> brokerProperties() {
 *         return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
 *     }
 * }
 * }</pre>
 *
 * <p>The cases are grouped, one file per group: the group {@code X} below runs the cases of
 * {@code XCases.java} (the bad-input groups: {@code Bad*Cases.java}). A test is skipped only when
 * the adapter's {@link io.switchboard.spi.Capabilities} declare the feature unsupported, and the
 * skip message says so. A missing broker is a failure.
 */
public abstract class BrokerContract extends ContractSupport {

    /** A JSON payload for the codec tests. */
    public record Order(String id, int quantity, List<String> items) {}

    /** A payload whose JSON encoding fails when {@code fail} is set (its accessor throws). */
    public record Unencodable(String name, boolean fail) {
        /** {@return the name; throws when this payload is made to fail} */
        @Override
        public String name() {
            if (fail) {
                throw new IllegalStateException("this payload cannot be serialized");
            }
            return name;
        }
    }

    @Nested
    @DisplayName("A round trip")
    class RoundTrip extends RoundTripCases {
        RoundTrip() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Ordering")
    class Ordering extends OrderingCases {
        Ordering() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Consumer groups")
    class ConsumerGroups extends ConsumerGroupCases {
        ConsumerGroups() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Broadcast")
    class Broadcast extends BroadcastCases {
        Broadcast() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("At-most-once")
    class AtMostOnce extends AtMostOnceCases {
        AtMostOnce() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("At-least-once")
    class AtLeastOnce extends AtLeastOnceCases {
        AtLeastOnce() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Exactly-once")
    class ExactlyOnce extends ExactlyOnceCases {
        ExactlyOnce() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("A poison message")
    class Poison extends PoisonCases {
        Poison() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Several payload types on one destination")
    class TypedPayloads extends TypedPayloadCases {
        TypedPayloads() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("The envelope: lean by default, full and compact on request")
    class CompactEnvelope extends CompactEnvelopeCases {
        CompactEnvelope() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Key formats")
    class KeyFormats extends KeyFormatCases {
        KeyFormats() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Closing")
    class Closing extends ClosingCases {
        Closing() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Under load")
    class UnderLoad extends UnderLoadCases {
        UnderLoad() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Asynchronous handlers")
    class AsyncHandlers extends AsyncHandlerCases {
        AsyncHandlers() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Batch handlers")
    class Batches extends BatchCases {
        Batches() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Pull consumer")
    class Pull extends PollerCases {
        Pull() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Request/reply")
    class RequestReply extends RequestReplyCases {
        RequestReply() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Where a subscription starts")
    class StartPositions extends StartPositionCases {
        StartPositions() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Bad input")
    class BadInput extends BadInputCases {
        BadInput() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Bad input: messages and names")
    class BadMessages extends BadMessageCases {
        BadMessages() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Bad input: settings")
    class BadSettings extends BadSettingsCases {
        BadSettings() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Bad input: closed and shared objects")
    class BadUse extends BadUseCases {
        BadUse() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Delayed delivery")
    class Delayed extends DelayedCases {
        Delayed() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Filtering")
    class Filtering extends FilterCases {
        Filtering() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Broker-side retry")
    class BrokerRetry extends RetryCases {
        BrokerRetry() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Retry classification")
    class RetryClassification extends RetryClassificationCases {
        RetryClassification() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Metrics")
    class Metrics extends MetricsCases {
        Metrics() {
            super(BrokerContract.this);
        }
    }

    @Nested
    @DisplayName("Tracing")
    class Tracing extends TracingCases {
        Tracing() {
            super(BrokerContract.this);
        }
    }
}
