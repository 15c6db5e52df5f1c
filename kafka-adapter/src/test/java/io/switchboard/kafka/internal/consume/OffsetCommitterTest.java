package io.switchboard.kafka.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Pure logic: what a refused synchronous commit leaves to commit (a consumer whose commitSync answers as told). */
@DisplayName("Offsets of a refused synchronous commit")
class OffsetCommitterTest {

    private final List<Map<TopicPartition, OffsetAndMetadata>> sent = new CopyOnWriteArrayList<>();
    private volatile boolean rebalancing = true;

    @SuppressWarnings("unchecked")
    private final Consumer<byte[], byte[]> consumer = (Consumer<byte[], byte[]>) Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                if (method.getName().equals("commitSync") && args != null && args.length == 2) {
                    if (rebalancing) {
                        throw new RebalanceInProgressException("the group is rebalancing");
                    }
                    sent.add(Map.copyOf((Map<TopicPartition, OffsetAndMetadata>) args[0]));
                    return null;
                }
                throw new UnsupportedOperationException(method.getName());
            });

    @Test
    @DisplayName("are sent again by the next commit (a subscription let go while its group rebalanced: KafkaSharedConsumerTest failed so)")
    void refusedDuringARebalanceIsSentAgain() {
        OffsetCommitter committer = new OffsetCommitter(consumer, "g", Duration.ofSeconds(5), Duration.ofSeconds(5));
        PartitionState state = new PartitionState(new TopicPartition("t", 0), 0);
        state.filtered(2); // offsets 0..2 processed: 3 to commit
        assertThat(state.commitNeeded()).isEqualTo(3);

        committer.commitSync(List.of(state)); // refused: RebalanceInProgressException
        assertThat(sent).isEmpty();
        assertThat(state.commitNeeded()).as("still to commit after the refusal").isEqualTo(3);

        rebalancing = false;
        committer.commitSync(List.of(state)); // the commit when the rebalance takes the partition away
        assertThat(sent).containsExactly(Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(3)));
        assertThat(state.commitNeeded()).as("nothing left once committed").isEqualTo(-1);
    }
}
