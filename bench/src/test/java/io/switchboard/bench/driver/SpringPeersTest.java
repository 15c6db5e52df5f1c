package io.switchboard.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.bench.run.RunProgress;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.run.WorkloadRunner;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Spring peers (issue 25) publish and consume a short keyed at-least-once workload completely,
 * on the in-process Kafka and the local RabbitMQ, with and without the native-ce headers, and so
 * does the Spring Cloud Stream peer (mode scs). Never timings.
 */
class SpringPeersTest {

    private static final String WORKLOAD = """
            name: spring-peers
            topics: 1
            partitionsPerTopic: 2
            messageSize: 64
            producersPerTopic: 2
            subscriptionsPerTopic: 1
            consumersPerSubscription: 2
            producerRate: 500
            warmup: 500ms
            duration: 1s
            delivery: at-least-once
            keyDistribution: KEY_ROUND_ROBIN
            """;

    @ParameterizedTest(name = "{0}/{1}")
    @DisplayName("a Spring peer publishes and consumes everything")
    @CsvSource({"kafka, spring", "kafka, spring-ce", "rabbitmq, spring", "rabbitmq, spring-ce", "kafka, scs", "rabbitmq, scs"})
    void completeRun(String broker, String mode) throws Exception {
        Workload workload = WorkloadParser.parse("spring-peers.yaml", WORKLOAD, name -> new byte[0], false).get(0);
        BrokerEndpoints endpoints = broker.equals("kafka")
                ? new BrokerEndpoints(EmbeddedKafka.shared().bootstrapServers(), null, null)
                : new BrokerEndpoints(null, rabbitUri(), null);
        String runId = "sp" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 30), 36);
        BenchDriver driver = Drivers.create(broker, mode, workload, endpoints, runId);
        assertThat(driver.mode()).isEqualTo(mode);

        RunResult result = new WorkloadRunner(workload, driver, runId, RunProgress.NONE, Duration.ZERO).run();

        assertThat(result.error()).isNull();
        assertThat(result.acked()).isPositive();
        assertThat(result.failed()).isZero();
        assertThat(result.lost()).isZero();
        assertThat(result.received()).isGreaterThanOrEqualTo(result.expected());
    }

    /** The local server's URI as the bench's default writes it: no trailing slash (which would name the vhost ""). */
    private static String rabbitUri() {
        String uri = RabbitMqServer.local().require().uriWithCredentials();
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    @org.junit.jupiter.api.Test
    @DisplayName("--spring-peers plans the Spring peer on Kafka and RabbitMQ only, and spring-ce with --native-envelope")
    void plannedModes() {
        assertThat(Drivers.modes("kafka", Drivers.extras(false, false, false, true))).containsExactly("sdk", "native", "spring");
        assertThat(Drivers.modes("rabbitmq", Drivers.extras(true, false, false, true)))
                .containsExactly("sdk", "native", "native-ce", "spring", "spring-ce");
        assertThat(Drivers.modes("rocketmq", Set.of("spring", "native-ce"))).containsExactly("sdk", "native", "native-ce");
        assertThat(Drivers.modes("memory", Set.of("spring"))).isEqualTo(List.of("sdk"));
    }

    @org.junit.jupiter.api.Test
    @DisplayName("--scs-peers plans the Spring Cloud Stream peer on Kafka and RabbitMQ only")
    void plannedScsModes() {
        assertThat(Drivers.modes("kafka", Drivers.extras(false, false, false, true, true)))
                .containsExactly("sdk", "native", "spring", "scs");
        assertThat(Drivers.modes("rabbitmq", Drivers.extras(false, false, false, false, true))).containsExactly("sdk", "native", "scs");
        assertThat(Drivers.modes("rocketmq", Set.of("scs"))).containsExactly("sdk", "native");
        assertThat(Drivers.modes("memory", Set.of("scs"))).isEqualTo(List.of("sdk"));
    }
}
