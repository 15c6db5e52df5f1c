package io.switchboard.bench.driver;

import io.switchboard.bench.workload.Workload;
import java.util.List;

/** Creates the driver for a broker and mode. */
public final class Drivers {

    /** The brokers with a Spring peer: Spring Kafka and Spring AMQP, and Spring Cloud Stream's Kafka and Rabbit binders (no RocketMQ starter for Spring Boot 4). */
    private static final java.util.Set<String> SPRING_PEERS = java.util.Set.of("kafka", "rabbitmq");

    private Drivers() {}

    /** The modes a broker runs in: the SDK, and the native client where there is one. */
    public static List<String> modes(String broker) {
        return modes(broker, false);
    }

    /** The modes, plus the native client carrying the SDK's envelope ({@link BenchDriver#NATIVE_ENVELOPE}) when asked. */
    public static List<String> modes(String broker, boolean nativeEnvelope) {
        return modes(broker, nativeEnvelope, false);
    }

    /**
     * The modes: the SDK, the native client, and when asked the native client carrying the SDK's
     * envelope ({@link BenchDriver#NATIVE_ENVELOPE}) and the SDK publishing its compact envelope
     * ({@link BenchDriver#SDK_COMPACT}).
     */
    public static List<String> modes(String broker, boolean nativeEnvelope, boolean compactEnvelope) {
        return modes(broker, extras(nativeEnvelope, compactEnvelope, false));
    }

    /** The extra modes of the command-line switches {@code --native-envelope}, {@code --compact-envelope}, {@code --native-batch}. */
    public static java.util.Set<String> extras(boolean nativeEnvelope, boolean compactEnvelope, boolean nativeBatch) {
        return extras(nativeEnvelope, compactEnvelope, nativeBatch, false);
    }

    /**
     * The extra modes of the command-line switches {@code --native-envelope}, {@code --compact-envelope},
     * {@code --native-batch} and {@code --spring-peers}.
     */
    public static java.util.Set<String> extras(boolean nativeEnvelope, boolean compactEnvelope, boolean nativeBatch,
            boolean springPeers) {
        return extras(nativeEnvelope, compactEnvelope, nativeBatch, springPeers, false);
    }

    /**
     * The extra modes of the command-line switches {@code --native-envelope}, {@code --compact-envelope},
     * {@code --native-batch}, {@code --spring-peers} and {@code --scs-peers}.
     */
    public static java.util.Set<String> extras(boolean nativeEnvelope, boolean compactEnvelope, boolean nativeBatch,
            boolean springPeers, boolean scsPeers) {
        java.util.Set<String> extras = new java.util.HashSet<>();
        if (nativeEnvelope) {
            extras.add(BenchDriver.NATIVE_ENVELOPE);
        }
        if (compactEnvelope) {
            extras.add(BenchDriver.SDK_COMPACT);
        }
        if (nativeBatch) {
            extras.add(BenchDriver.NATIVE_BATCH);
        }
        if (springPeers) {
            extras.add(BenchDriver.SPRING);
        }
        if (scsPeers) {
            extras.add(BenchDriver.SCS);
        }
        return extras;
    }

    /**
     * The modes: the SDK and the native client, plus those of {@code extras} that apply to the
     * broker ({@link BenchDriver#SDK_COMPACT}; {@link BenchDriver#NATIVE_ENVELOPE} where there is a
     * native client; {@link BenchDriver#NATIVE_BATCH} on RocketMQ only, and with
     * {@link BenchDriver#NATIVE_ENVELOPE} also {@link BenchDriver#NATIVE_BATCH_ENVELOPE}; the Spring
     * peer {@link BenchDriver#SPRING} on Kafka and RabbitMQ, and with {@link BenchDriver#NATIVE_ENVELOPE}
     * also {@link BenchDriver#SPRING_ENVELOPE}; the Spring Cloud Stream peer {@link BenchDriver#SCS} on
     * Kafka and RabbitMQ).
     */
    public static List<String> modes(String broker, java.util.Set<String> extras) {
        List<String> modes = new java.util.ArrayList<>(List.of(BenchDriver.SDK));
        if (extras.contains(BenchDriver.SDK_COMPACT)) {
            modes.add(BenchDriver.SDK_COMPACT);
        }
        if (extras.contains(BenchDriver.SDK_NONE)) {
            modes.add(BenchDriver.SDK_NONE);
        }
        if (extras.contains(BenchDriver.SDK_COST)) {
            modes.add(BenchDriver.SDK_COST);
        }
        if (!broker.equals("memory")) {
            modes.add(BenchDriver.NATIVE);
            if (extras.contains(BenchDriver.NATIVE_ENVELOPE)) {
                modes.add(BenchDriver.NATIVE_ENVELOPE);
            }
            if (broker.equals("rocketmq") && extras.contains(BenchDriver.NATIVE_BATCH)) {
                modes.add(BenchDriver.NATIVE_BATCH);
                if (extras.contains(BenchDriver.NATIVE_ENVELOPE)) {
                    modes.add(BenchDriver.NATIVE_BATCH_ENVELOPE);
                }
            }
            if (SPRING_PEERS.contains(broker) && extras.contains(BenchDriver.SPRING)) {
                modes.add(BenchDriver.SPRING);
                if (extras.contains(BenchDriver.NATIVE_ENVELOPE)) {
                    modes.add(BenchDriver.SPRING_ENVELOPE);
                }
            }
            if (SPRING_PEERS.contains(broker) && extras.contains(BenchDriver.SCS)) {
                modes.add(BenchDriver.SCS);
            }
        }
        return List.copyOf(modes);
    }

    /**
     * Connects a driver for one run.
     *
     * @param runId unique per run: client ids and in-memory broker names derive from it
     */
    public static BenchDriver create(String broker, String mode, Workload workload, BrokerEndpoints endpoints, String runId)
            throws Exception {
        if (endpoints.of(broker) == null) {
            throw new IllegalStateException("Broker '" + broker + "' is not available in this run");
        }
        if (mode.equals(BenchDriver.SDK) || mode.equals(BenchDriver.SDK_COMPACT) || mode.equals(BenchDriver.SDK_NONE)
                || mode.equals(BenchDriver.SDK_COST)) {
            java.util.Map<String, String> properties = new java.util.LinkedHashMap<>(workload.propertiesFor(broker));
            if (mode.equals(BenchDriver.SDK_COMPACT) || mode.equals(BenchDriver.SDK_NONE)) {
                properties.put("switchboard.envelope", mode.equals(BenchDriver.SDK_COMPACT) ? "compact" : "none");
            }
            return new SdkDriver(broker, mode, endpoints, properties, workload.delivery(), workload.consumerPrefetch(), runId);
        }
        if (mode.equals(BenchDriver.SPRING) || mode.equals(BenchDriver.SPRING_ENVELOPE)) {
            boolean envelope = mode.equals(BenchDriver.SPRING_ENVELOPE);
            return switch (broker) {
                case "kafka" -> new SpringKafkaDriver(endpoints.kafkaBootstrap(), workload, runId, envelope);
                case "rabbitmq" -> new SpringRabbitDriver(endpoints.rabbitUri(), workload, runId, envelope);
                default -> throw new IllegalArgumentException("Broker '" + broker + "' has no Spring peer");
            };
        }
        if (mode.equals(BenchDriver.SCS)) {
            return switch (broker) {
                case "kafka" -> new SpringCloudStreamDriver(broker, endpoints.kafkaBootstrap(), workload, runId);
                case "rabbitmq" -> new SpringCloudStreamDriver(broker, endpoints.rabbitUri(), workload, runId);
                default -> throw new IllegalArgumentException("Broker '" + broker + "' has no Spring Cloud Stream peer");
            };
        }
        boolean envelope = mode.equals(BenchDriver.NATIVE_ENVELOPE);
        return switch (broker) {
            case "kafka" -> new KafkaNativeDriver(endpoints.kafkaBootstrap(), workload, runId, envelope);
            case "rabbitmq" -> new RabbitNativeDriver(endpoints.rabbitUri(), workload, runId, envelope);
            case "rocketmq" -> new RocketMqNativeDriver(endpoints.rocketMqNameServer(), workload, runId, mode);
            default -> throw new IllegalArgumentException("Broker '" + broker + "' has no native driver; run it with mode "
                    + BenchDriver.SDK + " only");
        };
    }
}
