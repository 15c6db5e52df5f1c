package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code ensureDestinations} on the shared embedded RocketMQ: a batch of new topics with different queue counts is
 * created (one list request per broker, one wait for every route), each with its own queues; a second call and a
 * batch mixing existing and new topics change nothing that exists. A burst of subscriptions has its consumer groups
 * and their retry topics made ahead, in a batch, without overwriting a group that exists.
 */
@DisplayName("RocketMQ batch provisioning")
class RocketMqBatchProvisioningTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int TOPICS = 50;

    private final String prefix = "batch-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    private final List<String> created = new ArrayList<>();
    private final DefaultMQAdminExt admin = new DefaultMQAdminExt(WAIT.toMillis());
    private Switchboard sb;

    @BeforeEach
    void start() throws Exception {
        admin.setNamesrvAddr(EmbeddedRocketMq.shared().nameServerAddress());
        admin.setInstanceName("batch-test-admin-" + System.nanoTime());
        admin.start();
        sb = newSwitchboard();
    }

    @AfterEach
    void cleanUp() {
        try {
            created.forEach(sb.provisioning()::deleteDestination);
        } finally {
            sb.close();
            admin.shutdown();
        }
    }

    @Test
    @DisplayName("creates 50 topics with mixed queue counts in one call, each routed with its own queues and usable")
    void createsManyTopicsWithTheirQueues() throws Exception {
        List<DestinationSpec> specs = specs(0, TOPICS);

        sb.provisioning().ensureDestinations(specs);

        for (DestinationSpec spec : specs) {
            assertThat(readQueues(spec.name())).as("read queues of " + spec.name()).isEqualTo(spec.partitions());
        }
        for (DestinationSpec spec : List.of(specs.get(0), specs.get(TOPICS / 2 + 1), specs.get(TOPICS - 1))) {
            assertConsumed(spec.name());
        }
    }

    @Test
    @DisplayName("is idempotent: a second call, by this Switchboard or another, leaves every topic as it is")
    void secondCallChangesNothing() throws Exception {
        List<DestinationSpec> specs = specs(0, TOPICS);
        sb.provisioning().ensureDestinations(specs);

        sb.provisioning().ensureDestinations(specs);
        try (Switchboard other = newSwitchboard()) {
            // other counts: an existing topic keeps its queues
            other.provisioning().ensureDestinations(specs.stream().map(s -> DestinationSpec.of(s.name(), 8)).toList());
        }

        for (DestinationSpec spec : specs) {
            assertThat(readQueues(spec.name())).as("read queues of " + spec.name()).isEqualTo(spec.partitions());
        }
    }

    @Test
    @DisplayName("creates the new topics of a list that mixes them with existing ones, and leaves the existing ones")
    void mixesExistingAndNewTopics() throws Exception {
        List<DestinationSpec> existing = specs(0, 10);
        sb.provisioning().ensureDestinations(existing);
        List<DestinationSpec> fresh = specs(10, 30);
        List<DestinationSpec> mixed = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            mixed.add(fresh.get(i));
            if (i < existing.size()) {
                mixed.add(DestinationSpec.of(existing.get(i).name(), 8));
            }
        }

        try (Switchboard other = newSwitchboard()) {
            other.provisioning().ensureDestinations(mixed);
        }

        for (DestinationSpec spec : existing) {
            assertThat(readQueues(spec.name())).as("read queues of existing " + spec.name()).isEqualTo(spec.partitions());
        }
        for (DestinationSpec spec : fresh) {
            assertThat(readQueues(spec.name())).as("read queues of new " + spec.name()).isEqualTo(spec.partitions());
        }
        assertConsumed(fresh.get(fresh.size() - 1).name());
    }

    @Test
    @DisplayName("makes a burst of subscriptions' groups and retry topics ahead, so they consume on a broker that makes "
            + "no group itself, and leaves an existing group's settings")
    void makesGroupsAndRetryTopicsAhead() throws Exception {
        String broker = EmbeddedRocketMq.shared().brokerAddress();
        List<DestinationSpec> specs = specs(0, 20);
        List<String> topics = specs.stream().map(DestinationSpec::name).toList();
        sb.provisioning().ensureDestinations(specs);
        String preset = topics.get(0);
        SubscriptionGroupConfig existing = new SubscriptionGroupConfig();
        existing.setGroupName("g_" + preset);
        existing.setRetryMaxTimes(5);
        admin.createAndUpdateSubscriptionGroupConfig(broker, existing);
        Properties refuse = new Properties();
        refuse.setProperty("autoCreateSubscriptionGroup", "false");
        admin.updateBrokerConfig(broker, refuse);
        Set<String> received = ConcurrentHashMap.newKeySet();
        List<Subscription> subscriptions = new ArrayList<>();
        try (Switchboard burst = newSwitchboard()) {
            for (String topic : topics) { // the first starts at once, the rest in the next round, as one batch
                subscriptions.add(burst.subscriber(topic, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                        .subscribe((m, c) -> received.add(m.payload())));
            }
            for (Subscription subscription : subscriptions) {
                subscription.ready().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            for (String topic : topics) {
                assertThat(admin.examineSubscriptionGroupConfig(broker, "g_" + topic)).as("group of " + topic).isNotNull();
                assertThat(readQueues(MixAll.getRetryTopic("g_" + topic))).as("retry topic of " + topic).isEqualTo(1);
            }
            assertThat(admin.examineSubscriptionGroupConfig(broker, "g_" + preset).getRetryMaxTimes())
                    .as("retryMaxTimes of the group that existed").isEqualTo(5);
            try (Publisher<String> publisher = burst.publisher(topics.get(topics.size() - 1), Codec.utf8()).build()) {
                publisher.publish("last").toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            await().atMost(WAIT).until(() -> received.contains("last"));
        } finally {
            refuse.setProperty("autoCreateSubscriptionGroup", "true");
            admin.updateBrokerConfig(broker, refuse);
        }
    }

    /** Topics {@code from} to {@code to} (excluded) of this test, with 1 to 4 queues. */
    private List<DestinationSpec> specs(int from, int to) {
        List<DestinationSpec> specs = IntStream.range(from, to)
                .mapToObj(i -> DestinationSpec.of(prefix + i, i % 4 + 1)).toList();
        specs.forEach(s -> created.add(s.name()));
        return specs;
    }

    /** The read queues of the topic's route, summed over its broker groups. */
    private int readQueues(String topic) throws Exception {
        TopicRouteData route = admin.examineTopicRouteInfo(topic);
        return route.getQueueDatas().stream().mapToInt(QueueData::getReadQueueNums).sum();
    }

    private void assertConsumed(String topic) throws Exception {
        Set<String> received = ConcurrentHashMap.newKeySet();
        try (Subscription subscription = sb.subscriber(topic, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, c) -> received.add(m.payload()))) {
            subscription.ready().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            try (Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                    .build()) {
                publisher.publish("hello " + topic).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            await().atMost(WAIT).until(() -> received.contains("hello " + topic));
        }
    }

    private static Switchboard newSwitchboard() {
        return Switchboard.builder().broker("rocketmq").properties(RocketMqContractTest.embeddedBroker()).build();
    }
}
