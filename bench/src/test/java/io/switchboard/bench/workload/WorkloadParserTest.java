package io.switchboard.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class WorkloadParserTest {

    private static List<Workload> parse(String yaml) {
        return WorkloadParser.parse("test.yaml", yaml,
                name -> name.equals("payload.json") ? "{\"a\":1,\"b\":2}".getBytes(StandardCharsets.UTF_8)
                        : name.equals("tiny.json") ? "{}".getBytes(StandardCharsets.UTF_8) : null, false);
    }

    @Nested
    @DisplayName("a valid workload")
    class Valid {

        @Test
        @DisplayName("takes its fields and defaults the rest")
        void fieldsAndDefaults() {
            Workload w = parse("""
                    name: demo
                    topics: 2
                    partitionsPerTopic: 8
                    messageSize: 128
                    producerRate: 4000
                    duration: 30s
                    delivery: at-most-once
                    keyDistribution: key_round_robin
                    brokerProperties: {kafka: {linger.ms: 0, acks: 1}}
                    study: {source: "a blog", figure: "1.3 ms p99", conditions: "laptop"}
                    """).get(0);
            assertThat(w.name()).isEqualTo("demo");
            assertThat(w.variant()).isEmpty();
            assertThat(w.topics()).isEqualTo(2);
            assertThat(w.partitionsPerTopic()).isEqualTo(8);
            assertThat(w.payload().size()).isEqualTo(128);
            assertThat(w.producerRate()).isEqualTo(4000);
            assertThat(w.duration()).isEqualTo(Duration.ofSeconds(30));
            assertThat(w.countBased()).isFalse();
            assertThat(w.delivery()).isEqualTo(Delivery.AT_MOST_ONCE);
            assertThat(w.keyDistribution()).isEqualTo(KeyDistribution.KEY_ROUND_ROBIN);
            assertThat(w.propertiesFor("kafka")).containsEntry("linger.ms", "0").containsEntry("acks", "1");
            assertThat(w.propertiesFor("rabbitmq")).isEmpty();
            assertThat(w.study().figure()).isEqualTo("1.3 ms p99");
            assertThat(w.warmup()).isEqualTo(Duration.ofSeconds(5));
            assertThat(w.producersPerTopic()).isEqualTo(1);
            assertThat(w.synchronous()).isFalse();
        }

        @Test
        @DisplayName("reads a payload file")
        void payloadFile() {
            Workload w = parse("name: p\npayloadFile: payload.json\nmessageCount: 10\n").get(0);
            assertThat(w.payload().size()).isEqualTo(13);
            assertThat(w.payload().origin()).isEqualTo("payload.json");
            assertThat(w.countBased()).isTrue();
        }

        @Test
        @DisplayName("expands a grid of blocks into one workload per point, broker properties included")
        void grid() {
            List<Workload> points = parse("""
                    name: g
                    duration: 5s
                    brokerProperties: {kafka: {compression.type: snappy}}
                    grid:
                      - {partitionsPerTopic: [5, 50], kafka.batch.size: [10000, 200000]}
                      - {kafka.linger.ms: [10]}
                    """);
            assertThat(points).extracting(Workload::variant).containsExactly(
                    "partitionsPerTopic=5 kafka.batch.size=10000", "partitionsPerTopic=5 kafka.batch.size=200000",
                    "partitionsPerTopic=50 kafka.batch.size=10000", "partitionsPerTopic=50 kafka.batch.size=200000",
                    "kafka.linger.ms=10");
            assertThat(points.get(3).partitionsPerTopic()).isEqualTo(50);
            assertThat(points.get(3).propertiesFor("kafka"))
                    .isEqualTo(Map.of("compression.type", "snappy", "batch.size", "200000"));
            assertThat(points.get(4).propertiesFor("kafka")).containsEntry("linger.ms", "10");
        }

        @Test
        @DisplayName("uses the full grid with --full, where ranges expand")
        void fullGrid() {
            String yaml = "name: g\nduration: 5s\ngrid: {topics: [1]}\nfullGrid: {kafka.batch.size: \"10000..50000/10000\"}\n";
            assertThat(WorkloadParser.parse("t.yaml", yaml, n -> null, true)).hasSize(5);
            assertThat(WorkloadParser.parse("t.yaml", yaml, n -> null, false)).hasSize(1);
        }

        @Test
        @DisplayName("scales durations but keeps message counts")
        void scaled() {
            Workload w = parse("name: s\nduration: 10s\nwarmup: 4s\n").get(0).scaled(0.5);
            assertThat(w.duration()).isEqualTo(Duration.ofSeconds(5));
            assertThat(w.warmup()).isEqualTo(Duration.ofSeconds(2));
        }
    }

    @Nested
    @DisplayName("a bad workload is refused with the field and the fix")
    class Invalid {

        @Test
        @DisplayName("an unknown field, with the field it probably meant")
        void unknownField() {
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\npartitionPerTopic: 3\n"))
                    .isInstanceOf(WorkloadException.class)
                    .hasMessageContaining("test.yaml")
                    .hasMessageContaining("unknown field 'partitionPerTopic'")
                    .hasMessageContaining("did you mean 'partitionsPerTopic'");
        }

        @Test
        @DisplayName("a value of the wrong kind")
        void wrongValue() {
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\nproducerRate: fast\n"))
                    .hasMessageContaining("field 'producerRate' is 'fast'")
                    .hasMessageContaining("messages per second");
            assertThatThrownBy(() -> parse("name: x\nduration: soon\n"))
                    .hasMessageContaining("field 'duration' is 'soon'").hasMessageContaining("30s");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\ntopics: 0\n"))
                    .hasMessageContaining("field 'topics' is '0'");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\nsynchronous: maybe\n"))
                    .hasMessageContaining("field 'synchronous' is 'maybe' but must be true or false");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\ndelivery: exactly-once\n"))
                    .hasMessageContaining("field 'delivery'").hasMessageContaining("at-least-once");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\nbrokerProperties: {pulsar: {a: 1}}\n"))
                    .hasMessageContaining("field 'brokerProperties.pulsar'");
        }

        @Test
        @DisplayName("a missing name, both or neither of duration and messageCount")
        void required() {
            assertThatThrownBy(() -> parse("duration: 1s\n")).hasMessageContaining("field 'name' is missing");
            assertThatThrownBy(() -> parse("name: x\n")).hasMessageContaining("'duration'").hasMessageContaining("neither");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\nmessageCount: 5\n")).hasMessageContaining("both");
        }

        @Test
        @DisplayName("a missing payload file, and payload file with message size")
        void payload() {
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\npayloadFile: nope.json\n"))
                    .hasMessageContaining("field 'payloadFile' is 'nope.json'");
            // the bench's send time travels in a payload's first 8 bytes
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\nmessageSize: 7\n"))
                    .hasMessageContaining("field 'messageSize' is '7'").hasMessageContaining(">= 8");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\npayloadFile: tiny.json\n"))
                    .hasMessageContaining("field 'payloadFile' is 'tiny.json'").hasMessageContaining("at least 8 bytes");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\npayloadFile: payload.json\nmessageSize: 5\n"))
                    .hasMessageContaining("either 'messageSize' or 'payloadFile'");
        }

        @Test
        @DisplayName("a bad grid key or value names the grid point")
        void badGrid() {
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\ngrid: {partitions: [1, 2]}\n"))
                    .hasMessageContaining("grid key 'partitions'");
            assertThatThrownBy(() -> parse("name: x\nduration: 1s\ngrid: {topics: [1, zero]}\n"))
                    .hasMessageContaining("grid point topics=zero").hasMessageContaining("field 'topics' is 'zero'");
        }

        @Test
        @DisplayName("YAML that is not a mapping, or not YAML")
        void notYaml() {
            assertThatThrownBy(() -> parse("- a\n- b\n")).hasMessageContaining("must be a YAML mapping");
            assertThatThrownBy(() -> parse("name: [unclosed\n")).hasMessageContaining("is not valid YAML");
        }
    }
}
