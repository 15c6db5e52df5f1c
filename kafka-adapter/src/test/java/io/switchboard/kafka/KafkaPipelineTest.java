package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.FaultLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("An exactly-once Kafka pipeline")
class KafkaPipelineTest {

    /** A dead instance leaves its group after 6 s (the broker's minimum) instead of 45 s. */
    static final Map<String, String> FAST_FAILOVER = Map.of(
            "kafka.session.timeout.ms", "6000", "kafka.heartbeat.interval.ms", "1000");

    private final Switchboard switchboard = KafkaTestSupport.switchboard();
    private final List<KafkaPipeline> pipelines = new ArrayList<>();

    static String transform(int input) {
        return "out-" + input;
    }

    @AfterEach
    void close() {
        pipelines.forEach(KafkaPipeline::close);
        switchboard.close();
    }

    @Test
    @DisplayName("survives a crash in the middle of a transaction: read_committed output has every input once")
    void crashMidTransaction() throws Exception {
        String input = KafkaTestSupport.topic("eo-in");
        String output = KafkaTestSupport.topic("eo-out");
        String transactionalId = "crash-test-" + input;
        switchboard.provisioning().ensureDestination(DestinationSpec.of(input, 1));
        switchboard.provisioning().ensureDestination(DestinationSpec.of(output, 1));
        // books the output each input must give: published and acked once its input transaction committed
        FaultLedger ledger = new FaultLedger("pipeline-killed-mid-transaction", "kafka");
        publishInOneTransaction(input, 0, 50);
        book(ledger, 0, 50);

        Process crashing = startCrashingInstance(input, output, transactionalId, 75);
        try {
            await().atMost(TIMEOUT).until(() -> KafkaTestSupport.values(output, 1, true).size() == 50);
            publishInOneTransaction(input, 50, 100);
            book(ledger, 50, 100);
            assertThat(crashing.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("instance crashed").isTrue();
        } finally {
            crashing.destroyForcibly();
        }
        assertThat(crashing.exitValue()).isEqualTo(PipelineCrashApp.CRASH_STATUS);
        assertThat(KafkaTestSupport.values(output, 1, false)).as("written in the transaction left open").contains(transform(74));
        assertThat(KafkaTestSupport.values(output, 1, true)).as("committed before the crash").hasSize(50);

        start(input, output, transactionalId);

        List<String> expected = IntStream.range(0, 100).mapToObj(KafkaPipelineTest::transform).toList();
        await().atMost(TIMEOUT).until(() -> KafkaTestSupport.values(output, 1, true).size() >= 100);
        List<String> committed = KafkaTestSupport.values(output, 1, true);
        committed.forEach(ledger::consumed);
        System.out.println(ledger.line());
        assertThat(ledger.line()).isEqualTo("fault=pipeline-killed-mid-transaction broker=kafka published=100 acked=100 "
                + "consumed=100 unique=100 lost=0 duplicates=0");
        assertThat(committed).containsExactlyElementsOf(expected);
        assertThat(KafkaTestSupport.values(output, 1, false).size()).as("including the aborted records")
                .isGreaterThan(100);
    }

    /** Inputs {@code from} to {@code to - 1} were committed: their outputs are owed, once each. */
    private static void book(FaultLedger ledger, int from, int to) {
        for (int i = from; i < to; i++) {
            ledger.published(transform(i));
            ledger.acked(transform(i));
        }
    }

    @Test
    @DisplayName("aborts a batch whose transform failed and processes it again, publishing each output once")
    void retriesAFailedBatch() {
        String input = KafkaTestSupport.topic("retry-in");
        String output = KafkaTestSupport.topic("retry-out");
        AtomicBoolean failedOnce = new AtomicBoolean();
        KafkaPipeline pipeline = track(provisionedPipeline(input, output)
                .start(message -> {
                    int n = Integer.parseInt(message.payload());
                    if (n == 7 && failedOnce.compareAndSet(false, true)) {
                        throw new IllegalStateException("planned failure at " + n);
                    }
                    return List.of(Message.of(transform(n)));
                }));
        pipeline.ready().toCompletableFuture().join();
        publishInOneTransaction(input, 0, 20);

        List<String> expected = IntStream.range(0, 20).mapToObj(KafkaPipelineTest::transform).toList();
        await().atMost(TIMEOUT).until(() -> KafkaTestSupport.values(output, 1, true).size() >= 20);
        assertThat(failedOnce).isTrue();
        assertThat(KafkaTestSupport.values(output, 1, true)).containsExactlyElementsOf(expected);
        assertThat(pipeline.terminated().toCompletableFuture()).isNotDone();
    }

    @Test
    @DisplayName("stops, naming the cause, when a batch keeps failing")
    void stopsAfterMaxAttempts() {
        String input = KafkaTestSupport.topic("poison-in");
        String output = KafkaTestSupport.topic("poison-out");
        KafkaPipeline pipeline = track(provisionedPipeline(input, output).maxAttempts(2).start(message -> {
            throw new IllegalArgumentException("cannot transform " + message.payload());
        }));
        publishInOneTransaction(input, 0, 1);

        await().atMost(TIMEOUT).until(() -> pipeline.terminated().toCompletableFuture().isDone());
        assertThatThrownBy(() -> pipeline.terminated().toCompletableFuture().join())
                .hasMessageContaining(input).hasMessageContaining("2 time(s)");
        assertThat(KafkaTestSupport.values(output, 1, true)).isEmpty();
    }

    @Test
    @DisplayName("is refused on a Switchboard that is not on Kafka")
    void refusedOnOtherBrokers() {
        try (Switchboard memory = Switchboard.create("memory")) {
            assertThatThrownBy(() -> KafkaPipeline.builder(memory, "in", Codec.utf8(), "out", Codec.utf8())
                    .start(m -> List.of()))
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("memory").hasMessageContaining("kafka");
        }
    }

    private void start(String input, String output, String transactionalId) {
        KafkaPipeline.Builder<String, String> builder = provisionedPipeline(input, output).group("eo-" + input)
                .transactionalId(transactionalId);
        FAST_FAILOVER.forEach(builder::property);
        track(builder.start(m -> List.of(Message.of(m.key(), transform(Integer.parseInt(m.payload()))))));
    }

    /** A pipeline between two single-partition topics, which it creates. */
    private KafkaPipeline.Builder<String, String> provisionedPipeline(String input, String output) {
        switchboard.provisioning().ensureDestination(DestinationSpec.of(input, 1));
        switchboard.provisioning().ensureDestination(DestinationSpec.of(output, 1));
        return KafkaPipeline.builder(switchboard, input, Codec.utf8(), output, Codec.utf8());
    }

    private KafkaPipeline track(KafkaPipeline pipeline) {
        pipelines.add(pipeline);
        return pipeline;
    }

    /** Inputs {@code from} to {@code to - 1}, committed together, so that one poll gets them all. */
    private static void publishInOneTransaction(String topic, int from, int to) {
        try (KafkaProducer<String, String> producer = KafkaTestSupport.plainProducer(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "input-" + topic + "-" + from)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, Integer.toString(i)));
            }
            producer.commitTransaction();
        }
    }

    private static Process startCrashingInstance(String input, String output, String transactionalId, int crashAt)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // the crashing instance's log stays in target/ for diagnosis
        Path log = Files.createDirectories(Path.of("target")).resolve("pipeline-crash-" + input + ".log");
        return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                PipelineCrashApp.class.getName(), KafkaTestSupport.bootstrap(), input, output, "eo-" + input,
                transactionalId, Integer.toString(crashAt))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

}
