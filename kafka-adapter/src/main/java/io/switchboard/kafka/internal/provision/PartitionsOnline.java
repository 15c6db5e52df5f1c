package io.switchboard.kafka.internal.provision;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.TopicDescription;
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
    static boolean ready(Admin admin, Collection<TopicDescription> topics,
            Duration timeout) {
        List<TopicPartition> partitions = new java.util.ArrayList<>();
        for (TopicDescription d : topics) {
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
     * Waits until every partition of the topics has a leader and is online on it, asking each round only about the
     * topics and partitions not yet seen ready, with a pause that grows from 20 to 100 ms between rounds: polling
     * every partition of a few hundred new topics every 20 ms only adds to the load of the broker that is creating them
     * (there, 195 topics of 4 partitions were online at the first answer, 3.5 s after their creation, the same time a
     * plain consumer waits for their positions).
     *
     * @param describe the descriptions of the named topics, none for a topic not known yet
     * @param deadline {@link System#nanoTime()} by which they must be ready
     * @return the topics still not ready at the deadline (empty when all are)
     */
    static Set<String> await(Admin admin, Collection<String> names,
            Function<Collection<String>,
                    Map<String, TopicDescription>> describe,
            Duration timeout, long deadline) {
        Set<String> leaderless = new LinkedHashSet<>(names);
        Map<TopicPartition, String> offline = new HashMap<>();
        long pauseMillis = 20;
        long start = System.nanoTime();
        long leadersAt = 0;
        int rounds = 0;
        while (true) {
            rounds++;
            if (!leaderless.isEmpty()) {
                describe.apply(List.copyOf(leaderless)).forEach((name, description) -> {
                    if (description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                        leaderless.remove(name);
                        description.partitions().forEach(p -> offline.put(new TopicPartition(name, p.partition()), name));
                    }
                });
            }
            if (!offline.isEmpty()) {
                offline.keySet().removeAll(onlineOf(admin, List.copyOf(offline.keySet()), timeout));
            }
            if (leaderless.isEmpty() && leadersAt == 0) {
                leadersAt = System.nanoTime();
            }
            if (leaderless.isEmpty() && offline.isEmpty()) {
                log.debug("{} topic(s): every partition led after {} ms, online on its leader after {} ms ({} rounds)",
                        names.size(), (leadersAt - start) / 1_000_000, (System.nanoTime() - start) / 1_000_000, rounds);
                return Set.of();
            }
            if (System.nanoTime() > deadline) {
                Set<String> late = new TreeSet<>(leaderless);
                late.addAll(offline.values());
                return late;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
            pauseMillis = Math.min(100, pauseMillis * 2);
        }
    }

    /**
     * {@return the partitions whose leaders answered for them} A partition whose leader says it is not (yet) its
     * leader, or that did not answer in time, is left out; other errors (a broker without the API, a principal without
     * READ on the topic) cannot be waited out and count as online.
     */
    static Set<TopicPartition> onlineOf(Admin admin, List<TopicPartition> partitions, Duration timeout) {
        DescribeProducersResult result = admin.describeProducers(partitions);
        Set<TopicPartition> online = new HashSet<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (TopicPartition partition : partitions) {
            try {
                result.partitionResult(partition).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                online.add(partition);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NotLeaderOrFollowerException
                        || e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    log.debug("Cannot tell whether {} is online on its leader ({}); taking it as online", partition,
                            e.getCause().toString());
                    online.add(partition);
                }
            } catch (TimeoutException e) {
                return online; // the rest did not answer in time: asked again next round
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while checking that " + partitions + " are online", e);
            }
        }
        return online;
    }

    /**
     * {@return true when every partition's leader answers for it; false while one says it is not (yet) its leader}
     * Other errors (a broker without the API, a principal without READ on the topic) cannot be waited out and count as
     * online.
     */
    static boolean online(Admin admin, List<TopicPartition> partitions, Duration timeout) {
        return partitions.isEmpty() || onlineOf(admin, partitions, timeout).size() == partitions.size();
    }
}
