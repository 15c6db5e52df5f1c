package io.switchboard.rocketmq.internal.consume;

import io.switchboard.StartPosition;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.UpdateConsumerOffsetRequestHeader;

/**
 * Where a RocketMQ subscription starts in a queue for which its group has no offset.
 *
 * <p>RocketMQ's {@code consumeFromWhere} does not do it reliably for a new group: asked for the offset of a group that
 * has none, the broker answers 0 (not "none") while the queue's first message is still in memory, so
 * {@code CONSUME_FROM_LAST_OFFSET} and {@code CONSUME_FROM_TIMESTAMP} start a new group on a young or lightly used
 * topic at its first message. So before the consumer starts, each queue is asked for the group's offset with
 * {@code setZeroIfNotFound=false}, and where it has none the group's offset is written at the start position: the
 * queue's max offset (latest), the offset clamped to the queue's range, or the broker's offset for the time (found by
 * the messages' store time, on the broker's clock). {@code consumeFromWhere} is still set to match, for queues added
 * later; its {@code consumeTimestamp} ({@code yyyyMMddHHmmss}) is read by the client in the consumer JVM's default
 * time zone, so it is written in that zone.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
final class StartOffsets {

    private static final DateTimeFormatter CONSUME_TIMESTAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

    private StartOffsets() {}

    /** {@return RocketMQ's consumeFromWhere for a group subscription's position (null: the first offset)} */
    static ConsumeFromWhere consumeFromWhere(StartPosition start) {
        if (start == null) {
            return ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET;
        }
        return switch (start.kind()) {
            case EARLIEST, OFFSET -> ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET;
            case LATEST -> ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET;
            case TIME -> ConsumeFromWhere.CONSUME_FROM_TIMESTAMP;
        };
    }

    /** {@return the consumeTimestamp of a time position, in the client's default zone as the client reads it} */
    static String consumeTimestamp(Instant time) {
        return CONSUME_TIMESTAMP.format(time.atZone(ZoneId.systemDefault()));
    }

    /** {@return whether a group subscription's position is written to the broker before it starts} */
    static boolean written(StartPosition start) {
        return start != null && start.kind() != StartPosition.Kind.EARLIEST;
    }

    /** {@return the offset in the queue where the position starts} */
    static long target(MQClientAPIImpl api, String master, MessageQueue queue, StartPosition start, long timeout)
            throws Exception {
        return switch (start.kind()) {
            case EARLIEST -> api.getMinOffset(master, queue, timeout);
            case LATEST -> api.getMaxOffset(master, queue, timeout);
            case OFFSET -> Math.max(api.getMinOffset(master, queue, timeout),
                    Math.min(start.offset(), api.getMaxOffset(master, queue, timeout)));
            case TIME -> api.searchOffset(master, queue, start.time().toEpochMilli(), timeout);
        };
    }

    /**
     * Writes the group's offset in the queue at the position, unless the group has one there.
     *
     * @return the offset written, or -1 when the group had one (it resumes from it)
     */
    static long startGroup(MQClientAPIImpl api, String master, MessageQueue queue, String group, StartPosition start,
            long timeout) throws Exception {
        QueryConsumerOffsetRequestHeader query = new QueryConsumerOffsetRequestHeader();
        query.setConsumerGroup(group);
        query.setTopic(queue.getTopic());
        query.setQueueId(queue.getQueueId());
        query.setSetZeroIfNotFound(false);
        try {
            api.queryConsumerOffset(master, query, timeout);
            return -1;
        } catch (MQBrokerException e) {
            if (e.getResponseCode() != ResponseCode.QUERY_NOT_FOUND) {
                throw e;
            }
        }
        long offset = target(api, master, queue, start, timeout);
        UpdateConsumerOffsetRequestHeader update = new UpdateConsumerOffsetRequestHeader();
        update.setConsumerGroup(group);
        update.setTopic(queue.getTopic());
        update.setQueueId(queue.getQueueId());
        update.setCommitOffset(offset);
        api.updateConsumerOffset(master, update, timeout);
        return offset;
    }
}
