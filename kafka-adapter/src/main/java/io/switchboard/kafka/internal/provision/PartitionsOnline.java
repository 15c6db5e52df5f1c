package io.switchboard.kafka.internal.provision;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the leaders of new partitions have them online, so that the first records written to them cannot be refused.
 *
 * <p>Why: a broker lists a new partition's leader before its replica manager has applied the topic's creation, and
 * until then refuses produce requests with the retriable {@code NOT_LEADER_OR_FOLLOWER}. An idempotent producer with
 * several requests in flight (kafka-clients' default 5) can then have its first request refused and a later one taken;
 * the broker, with no state for the producer yet, accepts any first sequence, and every retry of the first request
 * fails with {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until {@code delivery.timeout.ms} (2 min) fails those records
 * (KAFKA-15591, seen here with broker 4.4.0 on the delay topics a delayed publish creates). {@code describeProducers}
 * is answered by the partition's leader from the same replica manager, so once it answers for every partition the
 * partitions take writes.
 */
final class PartitionsOnline {

    private static final Logger log = LoggerFactory.getLogger(PartitionsOnline.class);

    private PartitionsOnline() {}

    /** {@return true when every partition of the topics has a leader and is online on it} */
    static boolean ready(Admin admin, java.util.Collection<org.apache.kafka.clients.admin.TopicDescription> topics,
            Duration timeout) {
        List<TopicPartition> partitions = new java.util.ArrayList<>();
        for (org.apache.kafka.clients.admin.TopicDescription d : topics) {
            for (org.apache.kafka.common.TopicPartitionInfo p : d.partitions()) {
                if (p.leader() == null || p.leader().isEmpty()) {
                    return false;
                }
                partitions.add(new TopicPartition(d.name(), p.partition()));
            }
        }
        return online(admin, partitions, timeout);
    }

    /**
     * {@return true when every partition's leader answers for it; false while one says it is not (yet) its leader}
     * Other errors (a broker without the API, a principal without READ on the topic) cannot be waited out and count as
     * online.
     */
    static boolean online(Admin admin, List<TopicPartition> partitions, Duration timeout) {
        if (partitions.isEmpty()) {
            return true;
        }
        try {
            admin.describeProducers(partitions).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof NotLeaderOrFollowerException || e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false;
            }
            log.debug("Cannot tell whether {} are online on their leaders ({}); taking them as online", partitions,
                    e.getCause().toString());
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while checking that " + partitions + " are online", e);
        }
    }
}
