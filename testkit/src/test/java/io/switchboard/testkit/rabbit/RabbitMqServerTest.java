package io.switchboard.testkit.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RabbitMqServerTest {

  private final RabbitMqServer server = RabbitMqServer.local().require();

  @Test
  void passwordNeverShowsInMessagesOrToString() {
    RabbitMqServer secret = RabbitMqServer.at("amqp://app:s3cr3t@10.0.0.1:5673/orders");

    assertThat(secret.redactedUri()).isEqualTo("amqp://app:***@10.0.0.1:5673/orders");
    assertThat(secret.toString()).doesNotContain("s3cr3t");
    assertThat(secret.virtualHost()).isEqualTo("orders");
    assertThat(RabbitMqServer.at("amqp://guest:guest@127.0.0.1:5672/").virtualHost()).isEqualTo("/");
  }

  @Test
  void requireFailsWithTheStartCommandWhenNothingListens() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    RabbitMqServer absent = RabbitMqServer.at("amqp://guest:hidden@127.0.0.1:" + closedPort + "/");

    assertThatThrownBy(absent::require)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("amqp://guest:***@127.0.0.1:" + closedPort)
        .hasMessageContaining("rabbitmq-server -detached")
        .hasMessageNotContaining("hidden");
  }

  @Test
  void scratchDeletesWhatItsPrefixNames() throws Exception {
    RabbitScratch scratch = server.scratch("scratch test");
    String exchange = scratch.exchange("orders");
    String derivedQueue = scratch.name("orders.billing");
    try (Connection connection = server.connect("scratch-test")) {
      Channel channel = connection.createChannel();
      channel.exchangeDeclare(exchange, "topic", true);
      channel.queueDeclare(derivedQueue, true, false, false, null);

      scratch.close();

      assertThat(server.listQueues()).doesNotContain(derivedQueue);
      assertThat(server.listExchanges()).doesNotContain(exchange);
    }
  }

  @Test
  void closeConnectionsNamedDropsOnlyThoseAndTheyRecover() throws Exception {
    try (Connection victim = server.connect(scratchName("victim"));
        Connection bystander = server.connect(scratchName("bystander"))) {
      AtomicInteger recoveries = new AtomicInteger();
      ((Recoverable) victim).addRecoveryListener(new RecoveryListener() {
        @Override
        public void handleRecovery(Recoverable recoverable) {
          recoveries.incrementAndGet();
        }

        @Override
        public void handleRecoveryStarted(Recoverable recoverable) {}
      });

      assertThat(server.closeConnectionsNamed(victim.getClientProvidedName())).isEqualTo(1);

      await().atMost(Duration.ofSeconds(30)).untilAtomic(recoveries, equalTo(1));
      assertThat(victim.isOpen()).isTrue();
      assertThat(bystander.isOpen()).isTrue();
    }
  }

  private static String scratchName(String role) {
    return "sbt-" + role + "-" + System.nanoTime();
  }
}
