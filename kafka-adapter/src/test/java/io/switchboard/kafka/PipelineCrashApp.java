package io.switchboard.kafka;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Runs a pipeline in a JVM of its own and kills that JVM in the middle of a transaction: on input
 * {@code crashAt} it waits until the output of the input before it is on the broker (written inside
 * the open transaction), then halts without committing or aborting. Used by {@link KafkaPipelineTest}.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, group, transactional id, crashAt.
 */
public final class PipelineCrashApp {

    /** Exit status of the planned crash. */
    static final int CRASH_STATUS = 3;

    private PipelineCrashApp() {}

    public static void main(String[] args) {
        String bootstrap = args[0];
        String output = args[2];
        int crashAt = Integer.parseInt(args[5]);
        Switchboard switchboard = Switchboard.builder().broker("kafka").property("kafka.bootstrap.servers", bootstrap)
                .properties(KafkaPipelineTest.FAST_FAILOVER).build();
        KafkaPipeline pipeline = KafkaPipeline.builder(switchboard, args[1], Codec.utf8(), output, Codec.utf8())
                .group(args[3])
                .transactionalId(args[4])
                .start(input -> {
                    if (Integer.parseInt(input.payload()) == crashAt) {
                        awaitUncommitted(bootstrap, output, KafkaPipelineTest.transform(crashAt - 1));
                        Runtime.getRuntime().halt(CRASH_STATUS);
                    }
                    return List.of(Message.of(input.key(), KafkaPipelineTest.transform(Integer.parseInt(input.payload()))));
                });
        // the pipeline's thread is a daemon: keep the JVM alive until the crash
        pipeline.terminated().toCompletableFuture().join();
    }

    private static void awaitUncommitted(String bootstrap, String topic, String value) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
            while (true) {
                for (var record : consumer.poll(Duration.ofMillis(100))) {
                    if (record.value().equals(value)) {
                        return;
                    }
                }
            }
        }
    }
}
