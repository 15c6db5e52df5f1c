package io.switchboard.kafka;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import io.switchboard.kafka.internal.tx.PipelineRunner;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * An exactly-once consume-transform-publish pipeline on Kafka: reads a topic as a consumer group
 * ({@code read_committed}), turns each input message into output messages, and publishes them to
 * another topic in a Kafka transaction that also commits the input offsets. Each input is reflected
 * in the output exactly once, as {@code read_committed} consumers see it, even when an instance
 * crashes in the middle of a transaction: the transaction is aborted and its input read again.
 *
 * <pre>{@code
 * try (Switchboard sb = Switchboard.builder().broker("kafka")
 *         .property("kafka.bootstrap.servers", "localhost:9092").build();
 *      KafkaPipeline pipeline = KafkaPipeline.builder(sb, "orders", Codec.json(Order.class),
 *                      "invoices", Codec.json(Invoice.class))
 *              .group("invoicing")
 *              .transactionalId("invoicing-" + instanceNumber)   // stable per instance: a restart fences its predecessor
 *              .start(order -> List.of(Message.of(order.payload().customer(), invoiceFor(order.payload()))))) {
 *     pipeline.ready().toCompletableFuture().join();
 *     ...
 * }
 * }</pre>
 *
 * <p>Outputs carry Switchboard's envelope like any published message. A transform that throws, or an
 * input that cannot be decoded, aborts its batch, which is then processed again; after
 * {@link Builder#maxAttempts(int)} failures in a row the pipeline stops and {@link #terminated()}
 * completes exceptionally (nothing is skipped silently). Side effects other than the outputs are
 * not covered by the transaction. Core has no broker-neutral pipeline API yet; this one is Kafka's.
 *
 * <p>The pipeline is not owned by the Switchboard: close it before the Switchboard.
 */
public final class KafkaPipeline implements AutoCloseable {

    private final PipelineRunner<?, ?> runner;

    private KafkaPipeline(PipelineRunner<?, ?> runner) {
        this.runner = runner;
    }

    /**
     * Starts building a pipeline.
     *
     * @param switchboard a Switchboard on the {@code kafka} adapter; its properties configure the clients
     * @param input the topic to read
     * @param inputCodec decodes the input payloads
     * @param output the topic to publish to
     * @param outputCodec encodes the output payloads
     * @param <I> input payload type
     * @param <O> output payload type
     * @return a builder
     */
    public static <I, O> Builder<I, O> builder(Switchboard switchboard, String input, Codec<I> inputCodec, String output,
            Codec<O> outputCodec) {
        return new Builder<>(switchboard, input, inputCodec, output, outputCodec);
    }

    /**
     * Completes when the pipeline has been assigned its input partitions.
     *
     * @return completes when assigned
     */
    public CompletionStage<Void> ready() {
        return runner.ready();
    }

    /**
     * Completes when the pipeline stops: normally after {@link #close()}, exceptionally when it failed.
     *
     * @return completes when the pipeline stops
     */
    public CompletionStage<Void> terminated() {
        return runner.terminated();
    }

    /** Finishes the transaction in hand, then stops and closes the clients. Idempotent. */
    @Override
    public void close() {
        runner.close();
    }

    /** Turns one input message into the messages to publish (none, one or several). */
    @FunctionalInterface
    public interface Transform<I, O> {
        /**
         * Transforms one input.
         *
         * @param input the decoded input message, with its id, key, headers and timestamp
         * @return the output messages; their keys choose the output partitions
         * @throws Exception to abort the batch and process it again
         */
        List<Message<O>> apply(Message<I> input) throws Exception;
    }

    /**
     * Settings of a {@link KafkaPipeline}. Defaults: group {@code <input>-to-<output>}, a unique
     * {@code transactional.id}, 3 attempts per batch.
     *
     * @param <I> input payload type
     * @param <O> output payload type
     */
    public static final class Builder<I, O> {
        private final Switchboard switchboard;
        private final String input;
        private final Codec<I> inputCodec;
        private final String output;
        private final Codec<O> outputCodec;
        private String group;
        private String transactionalId;
        private int maxAttempts = 3;
        private final Map<String, String> properties = new LinkedHashMap<>();

        private Builder(Switchboard switchboard, String input, Codec<I> inputCodec, String output, Codec<O> outputCodec) {
            this.switchboard = Objects.requireNonNull(switchboard, "switchboard");
            this.input = Objects.requireNonNull(input, "input");
            this.inputCodec = Objects.requireNonNull(inputCodec, "inputCodec");
            this.output = Objects.requireNonNull(output, "output");
            this.outputCodec = Objects.requireNonNull(outputCodec, "outputCodec");
            this.group = input + "-to-" + output;
        }

        /**
         * The consumer group reading the input; instances of one pipeline share it.
         *
         * @param group the group's name
         * @return this builder
         */
        public Builder<I, O> group(String group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * A {@code transactional.id} that stays the same across restarts of this instance (and differs
         * between instances): a restarted instance then aborts what its predecessor left open at once,
         * instead of after the transaction timeout.
         *
         * @param id the transactional id
         * @return this builder
         */
        public Builder<I, O> transactionalId(String id) {
            this.transactionalId = Objects.requireNonNull(id, "id");
            return this;
        }

        /**
         * Failures in a row on the same batch before the pipeline stops; at least 1.
         *
         * @param attempts the most failures in a row
         * @return this builder
         */
        public Builder<I, O> maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * A property overriding the Switchboard's for this pipeline, for example {@code kafka.max.poll.records}.
         *
         * @param key the property name
         * @param value its value
         * @return this builder
         */
        public Builder<I, O> property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Provisions the topics when auto-provisioning is on, and starts the pipeline.
         *
         * @param transform turns each input record into output records
         * @return the running pipeline
         * @throws io.switchboard.ConfigurationException when the Switchboard is not on Kafka or a setting is invalid
         * @throws io.switchboard.InvalidDestinationException when a topic name breaks Kafka's rule
         */
        public KafkaPipeline start(Transform<I, O> transform) {
            Objects.requireNonNull(transform, "transform");
            PipelineRunner<I, O> runner = new PipelineRunner<>(switchboard, input, inputCodec, output, outputCodec, group,
                    transactionalId, maxAttempts, properties, transform::apply);
            runner.start();
            return new KafkaPipeline(runner);
        }
    }
}
