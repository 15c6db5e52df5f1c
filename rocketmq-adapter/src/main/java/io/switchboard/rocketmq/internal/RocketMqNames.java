package io.switchboard.rocketmq.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.DestinationNameRule;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.apache.rocketmq.common.topic.TopicValidator;

/**
 * RocketMQ's naming rules, and how Switchboard's names become RocketMQ's.
 *
 * <p>Topics: letters, digits, {@code _} and {@code -}, at most 127 characters ({@code %} and
 * {@code |}, legal in RocketMQ, are kept for its retry, dead-letter and namespace names), no
 * system topic. Since dots are not allowed, the dead-letter destination of {@code orders} is
 * {@code orders_dlq}.
 *
 * <p>Consumer groups: a RocketMQ consumer group spans topics, and every member of a group must
 * subscribe to the same topics, or queues are handed to members that never read them. A
 * Switchboard group belongs to one destination, so by default the RocketMQ group is
 * {@code <group>_<destination>}; with {@code rocketmq.group-per-destination=false} it is the
 * group name as given (for groups shared with plain RocketMQ consumers).
 */
final class RocketMqNames {

    static final String DEAD_LETTER_SUFFIX = "_dlq";

    private static final int MAX_TOPIC_LENGTH = 127;
    private static final int MAX_GROUP_LENGTH = 120;
    private static final Pattern GROUP = Pattern.compile("[a-zA-Z0-9_-]+");

    private RocketMqNames() {}

    static DestinationNameRule destinationRule() {
        return DestinationNameRule.of("[a-zA-Z0-9_-]+", MAX_TOPIC_LENGTH,
                "RocketMQ's topic rule: letters, digits, '_' and '-' (at most " + MAX_TOPIC_LENGTH + " characters)",
                Set.copyOf(TopicValidator.getSystemTopicSet()), Set.of(TopicValidator.SYSTEM_TOPIC_PREFIX, "RMQ_SYS_"));
    }

    static String deadLetterOf(String destination) {
        return destination + DEAD_LETTER_SUFFIX;
    }

    /** Throws a {@link ConfigurationException} when a group name breaks RocketMQ's rule. */
    static void checkGroup(String group, String what) {
        if (group.length() > MAX_GROUP_LENGTH || !GROUP.matcher(group).matches()) {
            throw new ConfigurationException("The " + what + " '" + group + "' is not a valid RocketMQ group name: use "
                    + "letters, digits, '_' and '-' (at most " + MAX_GROUP_LENGTH + " characters)");
        }
    }

    /**
     * The RocketMQ consumer group of a Switchboard group on a destination; shortened with a
     * checksum, the same on every member, when it would pass RocketMQ's length limit.
     */
    static String consumerGroup(String group, String destination, boolean perDestination) {
        checkGroup(group, "consumer group");
        if (!perDestination) {
            return group;
        }
        String name = group + "_" + destination;
        if (name.length() <= MAX_GROUP_LENGTH) {
            return name;
        }
        CRC32 crc = new CRC32();
        crc.update(name.getBytes(StandardCharsets.UTF_8));
        String checksum = String.format("%08x", crc.getValue());
        return name.substring(0, MAX_GROUP_LENGTH - checksum.length() - 1) + "_" + checksum;
    }
}
