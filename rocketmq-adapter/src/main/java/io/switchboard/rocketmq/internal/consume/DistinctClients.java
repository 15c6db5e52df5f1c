package io.switchboard.rocketmq.internal.consume;

import java.util.List;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares a group's queues among its distinct clients, whatever the broker's list of them repeats.
 *
 * <p>The broker lists a group's consumers by connection: a client whose old connection the broker
 * still holds open (a connection that died without the broker seeing it close, as after a network
 * cut or behind a silent peer, until the broker drops it after two minutes without heartbeats) is
 * listed once per connection. rocketmq-client's strategies then count it as several consumers and
 * give it only its share for one of them: with a single consumer listed twice it takes half of the
 * queues, and the other half are consumed by no one until the stale connection goes. A client id
 * names one client instance, so counting each once is exact; the queues are then shared by
 * {@code delegate} as usual.
 */
final class DistinctClients implements AllocateMessageQueueStrategy {

    private static final Logger log = LoggerFactory.getLogger(DistinctClients.class);

    private final AllocateMessageQueueStrategy delegate;

    DistinctClients(AllocateMessageQueueStrategy delegate) {
        this.delegate = delegate;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll,
            List<String> cidAll) {
        List<String> distinct = cidAll == null ? null : cidAll.stream().distinct().toList();
        if (distinct != null && distinct.size() < cidAll.size()) {
            log.info("The broker lists {} consumers of group '{}' of which {} are distinct (stale connections of the "
                    + "same client); sharing its queues among the distinct ones: {}", cidAll.size(), consumerGroup,
                    distinct.size(), distinct);
        }
        return delegate.allocate(consumerGroup, currentCID, mqAll, distinct);
    }

    @Override
    public String getName() {
        return delegate.getName();
    }
}
