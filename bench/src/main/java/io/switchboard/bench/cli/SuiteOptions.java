package io.switchboard.bench.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options every suite-running command shares. */
final class SuiteOptions {

    @Option(names = "--brokers", split = ",", paramLabel = "ID",
            description = "Brokers to include: kafka, rabbitmq, rocketmq, memory (default: each workload's own list).")
    List<String> brokers = new ArrayList<>();

    @Option(names = "--kafka-bootstrap", paramLabel = "HOST:PORT",
            description = "An external Kafka cluster (default: a single-node broker started in-process).")
    String kafkaBootstrap;

    @Option(names = "--rabbit-uri", paramLabel = "URI",
            description = "RabbitMQ's AMQP URI (default: amqp://guest:guest@127.0.0.1:5672/).")
    String rabbitUri;

    @Option(names = "--rocketmq-namesrv", paramLabel = "HOST:PORT",
            description = "An external RocketMQ name server (default: name server and broker started in-process).")
    String rocketMqNameServer;

    @Option(names = "--brokers-in-child",
            description = "Start Kafka and RocketMQ (where no external address is given) each in a JVM of its own (-Xmx768m) "
                    + "instead of in the bench's JVM: jvm_cpu_us_per_msg is then the clients' CPU alone, and "
                    + "broker_cpu_us_per_msg the broker JVM's. The child exits with the bench.")
    boolean brokersInChild;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Where to write results.csv, results.json and report.html (default: bench-results/<time>).")
    Path out;

    @Option(names = "--full", description = "Run each workload's full grid (fullGrid) instead of the shortened one.")
    boolean full;

    @Option(names = "--time-scale", paramLabel = "FACTOR", defaultValue = "1.0",
            description = "Multiply every warm-up and duration by this (message counts stay); default ${DEFAULT-VALUE}.")
    double timeScale;

    @Option(names = "--sdk-only", description = "Only through Switchboard, no native runs (soak runs).")
    boolean sdkOnly;

    @Option(names = "--modes", split = ",", paramLabel = "MODE",
            description = "Only these of the planned modes (such as native,sdk-none): to run each mode in a JVM of its own, "
                    + "where no other mode's calls reshape the JIT's code for the shared client library "
                    + "(bench/scripts/by-mode.sh).")
    List<String> modes = new ArrayList<>();

    @Option(names = "--native-envelope",
            description = "Also run the native client carrying the SDK's CloudEvents headers (mode native-ce): SDK/native-ce is "
                    + "the cost of the SDK's code, native-ce/native the cost of the envelope on the wire.")
    boolean nativeEnvelope;

    @Option(names = "--compact-envelope",
            description = "Also run the SDK publishing its compact envelope (mode sdk-compact, switchboard.envelope=compact): "
                    + "SDK-compact/native compares the SDK with one small envelope header against the native client.")
    boolean compactEnvelope;

    @Option(names = "--none-envelope",
            description = "Also run the SDK publishing no envelope (mode sdk-none, switchboard.envelope=none): SDK-none/native "
                    + "compares the SDK carrying the same bytes as the native client.")
    boolean noneEnvelope;

    @Option(names = "--native-batch",
            description = "Also run RocketMQ's native client batching keyed sends in order, one batch in flight per queue, as "
                    + "the SDK does (mode native-batch): SDK/native-batch compares the same work. With --native-envelope also mode "
                    + "native-batch-ce, which carries the SDK's CloudEvents headers too.")
    boolean nativeBatch;

    @Option(names = "--spring-peers",
            description = "Also run the Spring peers (mode spring): Spring Kafka (KafkaTemplate, a listener container) on Kafka, "
                    + "Spring AMQP (RabbitTemplate with correlated confirms, SimpleMessageListenerContainer) on RabbitMQ, with "
                    + "the native client's settings and guarantees. With --native-envelope also mode spring-ce, carrying the "
                    + "headers of native-ce.")
    boolean springPeers;

    @Option(names = "--scs-peers",
            description = "Also run the Spring Cloud Stream peers (mode scs): StreamBridge and a functional consumer in a Spring "
                    + "Boot application per producer side and per consumer, through the Kafka binder on Kafka and the Rabbit binder "
                    + "on RabbitMQ (publisher confirms, AUTO acks), with the native client's topology and guarantees.")
    boolean scsPeers;

    /** The extra modes these options ask for. */
    java.util.Set<String> extraModes() {
        java.util.Set<String> extras =
                io.switchboard.bench.driver.Drivers.extras(nativeEnvelope, compactEnvelope, nativeBatch, springPeers, scsPeers);
        if (noneEnvelope) {
            extras.add(io.switchboard.bench.driver.BenchDriver.SDK_NONE);
        }
        if (clientCost) {
            extras.add(io.switchboard.bench.driver.BenchDriver.SDK_COST);
        }
        return extras;
    }

    @Option(names = "--client-cost",
            description = "Also run mode sdk-cost: the SDK with a one-instance routed Switchboard and the live comparison on, "
                    + "whose client CPU per message (meter switchboard.client.cpu) goes to column client_cpu_us_per_msg beside "
                    + "jvm_cpu_us_per_msg; use with --brokers-in-child so that both are the client's alone.")
    boolean clientCost;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
            description = "Run every workload point N times (the modes in alternating order); each repetition is paired and "
                    + "reported on its own, and the per-broker means cover them all; default ${DEFAULT-VALUE}.")
    int repeat;

    @Option(names = "--heap-probe-seconds", paramLabel = "N", defaultValue = "0",
            description = "Force a full GC and probe the heap every N s while measuring, for the trend of the heap after GC "
                    + "(soak runs); default ${DEFAULT-VALUE}: no probes.")
    int heapProbeSeconds;

    @Option(names = "--jfr", paramLabel = "DIR",
            description = "Record each run with Java Flight Recorder into DIR/<workload>-<broker>-<mode>.jfr.")
    Path jfr;

    @Option(names = "--jfr-settings", paramLabel = "NAME", defaultValue = "profile",
            description = "The JDK's recording settings for --jfr: profile (method samples every 10 ms, more events; it "
                    + "slowed the SDK's Kafka runs threefold here) or default (about 1 %% overhead: GC pauses, "
                    + "allocation samples, method samples every 20 ms) or cpu (default with method samples every 2 ms); default "
                    + "${DEFAULT-VALUE}.")
    String jfrSettings;

    @Option(names = "--jvm-warmup", paramLabel = "SECONDS", defaultValue = "20",
            description = "Before a broker's first measured run, run its first workload unmeasured for SECONDS in each mode, "
                    + "so that the side measured first does not pay for compiling the in-process broker's and the "
                    + "clients' code; default ${DEFAULT-VALUE}, 0: none.")
    int jvmWarmupSeconds;

    @Option(names = "--no-progress", description = "No progress bar; one line per finished run instead.")
    boolean noProgress;
}
