package io.switchboard.rocketmq.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Queue allocation among distinct clients")
class DistinctClientsTest {

    private final DistinctClients strategy = new DistinctClients(new AllocateMessageQueueAveragely());
    private final List<MessageQueue> queues = IntStream.range(0, 4)
            .mapToObj(i -> new MessageQueue("orders", "broker-a", i)).toList();

    @Test
    @DisplayName("a client the broker lists twice (a stale connection) still gets every queue when it is alone")
    void loneClientListedTwice() {
        assertThat(new AllocateMessageQueueAveragely().allocate("g", "a", queues, List.of("a", "a")))
                .as("rocketmq-client's own strategy, for comparison").hasSize(2);

        assertThat(strategy.allocate("g", "a", queues, List.of("a", "a"))).containsExactlyElementsOf(queues);
    }

    @Test
    @DisplayName("two clients, one listed twice, share the queues half and half, every queue to one of them")
    void twoClientsOneListedTwice() {
        List<MessageQueue> a = strategy.allocate("g", "a", queues, List.of("a", "a", "b"));
        List<MessageQueue> b = strategy.allocate("g", "b", queues, List.of("a", "a", "b"));

        assertThat(a).hasSize(2).doesNotContainAnyElementsOf(b);
        assertThat(b).hasSize(2);
        assertThat(strategy.getName()).isEqualTo(new AllocateMessageQueueAveragely().getName());
    }
}
