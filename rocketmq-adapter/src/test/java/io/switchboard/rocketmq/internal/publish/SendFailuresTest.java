package io.switchboard.rocketmq.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.BackPressureException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.client.AclCredentials;
import java.util.concurrent.TimeoutException;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RocketMQ send failures")
class SendFailuresTest {

    private static final String NAME_SERVER = "127.0.0.1:9876";

    @Test
    @DisplayName("a failed connection names the broker address and what to check, and may be retried")
    void connectFailed() {
        SwitchboardException e = SendFailures.of(new RemotingConnectException("127.0.0.1:10911"), "orders", NAME_SERVER, AclCredentials.none());

        assertThat(e).isInstanceOf(PublishException.class).hasCauseInstanceOf(TimeoutException.class);
        assertThat(e.getMessage()).contains("'orders'", NAME_SERVER, "the connection to broker 127.0.0.1:10911 failed",
                "brokerIP1", "reachable");
    }

    @Test
    @DisplayName("a connection that broke while sending is a connection failure, not a refusal, and may be retried")
    void sendRequestFailed() {
        Throwable error = new MQClientException("send message failed",
                new RemotingSendRequestException("/127.0.0.1:10911", new java.io.IOException("Connection reset")));

        SwitchboardException e = SendFailures.of(error, "orders", NAME_SERVER, AclCredentials.none());

        assertThat(e).hasCauseInstanceOf(TimeoutException.class);
        assertThat(e.getMessage()).contains("the connection to broker 127.0.0.1:10911 broke while sending")
                .doesNotContain("refused").doesNotContain("</");
    }

    @Test
    @DisplayName("a connection closed with the send in flight ('unknown reason') is a connection failure, without the request's dump")
    void closedInFlight() {
        Throwable error = new MQClientException("unknown reason", new RemotingException(
                "RemotingCommand [code=310, language=JAVA, extFields={i=KEYSk12 secret-header}]"));

        SwitchboardException e = SendFailures.of(error, "orders", NAME_SERVER, AclCredentials.none());

        assertThat(e).hasCauseInstanceOf(TimeoutException.class);
        assertThat(e.getMessage()).contains("the connection to the broker closed before it answered", "reachable")
                .doesNotContain("refused").doesNotContain("unknown reason").doesNotContain("secret-header");
        assertThat(e.getCause().getMessage()).doesNotContain("secret-header");
    }

    @Test
    @DisplayName("a time-out names the broker, how long it waited, and the setting to raise")
    void timedOut() {
        SwitchboardException e = SendFailures.of(new RemotingTimeoutException("/127.0.0.1:40481", 2998), "orders",
                NAME_SERVER, AclCredentials.none());

        assertThat(e).hasCauseInstanceOf(TimeoutException.class);
        assertThat(e.getMessage()).contains("no answer from broker 127.0.0.1:40481 within 2998 ms",
                "rocketmq.send-timeout", "duplicate");
    }

    @Test
    @DisplayName("a connection failure to no address says the route is missing, not 'null'")
    void noAddress() {
        SwitchboardException e = SendFailures.of(new RemotingConnectException(null), "orders", NAME_SERVER, AclCredentials.none());

        assertThat(e.getMessage()).contains("the connection to the broker failed", "routes the topic")
                .doesNotContain("null");
    }

    @Test
    @DisplayName("reads the address from each of rocketmq-client's remoting messages")
    void addresses() {
        assertThat(SendFailures.brokerAddress("connect to 10.0.0.5:10911 failed")).isEqualTo("10.0.0.5:10911");
        assertThat(SendFailures.brokerAddress("send request to </10.0.0.5:10911> failed")).isEqualTo("10.0.0.5:10911");
        assertThat(SendFailures.brokerAddress("wait response on the channel <10.0.0.5:10911> timeout, 3000(ms)"))
                .isEqualTo("10.0.0.5:10911");
        assertThat(SendFailures.brokerAddress("connect to null failed")).isNull();
        assertThat(SendFailures.brokerAddress("something else")).isNull();
        assertThat(SendFailures.brokerAddress(null)).isNull();
    }

    @Test
    @DisplayName("a busy broker is back-pressure, and any other refusal a plain publish failure")
    void busyAndRefused() {
        assertThat(SendFailures.of(new MQBrokerException(ResponseCode.SYSTEM_BUSY, "busy"), "orders", NAME_SERVER, AclCredentials.none()))
                .isInstanceOf(BackPressureException.class);
        SwitchboardException refused = SendFailures.of(new MQBrokerException(ResponseCode.NO_PERMISSION, "no write"),
                "orders", NAME_SERVER, AclCredentials.none());
        assertThat(refused).isExactlyInstanceOf(PublishException.class).hasMessageContaining("refused")
                .hasMessageContaining("no write");
        assertThat(refused.getCause()).isNotInstanceOf(TimeoutException.class);
    }
}
