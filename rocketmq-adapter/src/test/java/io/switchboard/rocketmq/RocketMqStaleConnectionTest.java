package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.FaultLedger;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.Connection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.header.HeartbeatRequestHeader;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A consumer whose old connection the broker still holds (a connection that died without the
 * broker seeing it close, as the network cuts in {@link RocketMqNetworkFaultTest} sometimes leave)
 * keeps every queue of its group. The broker lists such a client once per connection; counted
 * twice, a lone consumer would take half of the queues and leave the rest to no one until the
 * broker drops the stale connection, two minutes later. The stale connection is made here on
 * purpose: a second connection that sends the consumer's own heartbeat (same client id).
 */
@Tag("fault")
@DisplayName("RocketMQ with a stale connection of the consumer")
class RocketMqStaleConnectionTest {

    private static final int QUEUES = 4;
    private static final int MESSAGES = 400;
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @Test
    @DisplayName("a consumer the broker lists twice still consumes every queue: nothing is left behind")
    void consumerListedTwiceKeepsEveryQueue() throws Exception {
        FaultLedger ledger = new FaultLedger("stale-connection", "rocketmq");
        EmbeddedRocketMq rocketMq = EmbeddedRocketMq.shared();
        String destination = "stale-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "g_" + destination;
        DefaultMQAdminExt admin = new DefaultMQAdminExt(SETTLE.toMillis());
        admin.setNamesrvAddr(rocketMq.nameServerAddress());
        admin.setInstanceName("stale-test-admin-" + System.nanoTime());
        NettyRemotingClient stale = new NettyRemotingClient(new NettyClientConfig());
        try (Switchboard sb = Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", rocketMq.nameServerAddress())
                .build()) {
            admin.start();
            stale.start();
            sb.provisioning().ensureDestination(DestinationSpec.of(destination, QUEUES));
            Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g")
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((m, c) -> ledger.consumed(m.payload()));
            subscription.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);

            ConsumerConnection connection = await().atMost(SETTLE)
                    .until(() -> admin.examineConsumerConnectionInfo(group), c -> !c.getConnectionSet().isEmpty());
            String clientId = connection.getConnectionSet().stream().map(Connection::getClientId).findFirst()
                    .orElseThrow();
            RemotingCommand response = stale.invokeSync(rocketMq.brokerAddress(), heartbeat(clientId, group, connection),
                    SETTLE.toMillis());
            assertThat(response.getCode()).as("the stale connection's heartbeat: " + response.getRemark())
                    .isEqualTo(ResponseCode.SUCCESS);
            List<String> listed = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl()
                    .getConsumerIdListByGroup(rocketMq.brokerAddress(), group, SETTLE.toMillis());
            assertThat(listed).as("the broker lists the consumer once per connection (the fault is real)")
                    .containsExactly(clientId, clientId);

            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                    .build();
            List<CompletableFuture<Object>> sent = new ArrayList<>();
            for (int i = 0; i < MESSAGES; i++) {
                String payload = "p" + i;
                // no key: the producer spreads them over every queue
                sent.add(ledger.track(payload, () -> publisher.publish(Message.of(payload))));
            }
            try {
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(ledger::nothingLost);
            } catch (ConditionTimeoutException e) {
                // reported through the figure line and the assertions below
            }
            String line = ledger.line();
            System.out.println(line);
            assertThat(ledger.ackedCount()).as(line).isEqualTo(MESSAGES);
            assertThat(ledger.lostCount()).as("acknowledged but not consumed (queues left to no one): " + line).isZero();
            assertThat(line).contains(" lost=0 ");
        } finally {
            stale.shutdown();
            admin.shutdown();
        }
    }

    /** The consumer's own heartbeat, as rocketmq-client sends it: its client id, group and subscriptions. */
    private static RemotingCommand heartbeat(String clientId, String group, ConsumerConnection connection) {
        ConsumerData consumer = new ConsumerData();
        consumer.setGroupName(group);
        consumer.setConsumeType(connection.getConsumeType());
        consumer.setMessageModel(connection.getMessageModel());
        consumer.setConsumeFromWhere(connection.getConsumeFromWhere());
        consumer.getSubscriptionDataSet().addAll(connection.getSubscriptionTable().values());
        HeartbeatData heartbeat = new HeartbeatData();
        heartbeat.setClientID(clientId);
        heartbeat.getConsumerDataSet().add(consumer);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT,
                new HeartbeatRequestHeader());
        request.setLanguage(LanguageCode.JAVA);
        request.setBody(heartbeat.encode());
        return request;
    }
}
