package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.Switchboard;
import io.switchboard.rocketmq.internal.RocketMqAdapter;
import io.switchboard.rocketmq.internal.client.AclCredentials;
import io.switchboard.rocketmq.internal.client.TlsSupport;
import io.switchboard.spi.BrokerConfig;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ACL and TLS properties as read and shown, without a broker: nothing here connects. */
@DisplayName("RocketMQ ACL credentials and TLS settings")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RocketMqAclSettingsTest {

    private static final String SECRET = "s3cr3t-Value-42";

    @Test
    @DisplayName("an access key without a secret key is refused at start, naming both properties")
    void accessKeyAlone() {
        assertThatThrownBy(() -> Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", "127.0.0.1:9876")
                .property("rocketmq.access-key", "orders-app").build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'rocketmq.access-key' is set (access key 'orders-app')")
                .hasMessageContaining("'rocketmq.secret-key' is missing")
                .hasMessageContaining("set 'rocketmq.secret-key'");
    }

    @Test
    @DisplayName("a secret key without an access key is refused at start, without repeating the secret")
    void secretKeyAlone() {
        assertThatThrownBy(() -> Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", "127.0.0.1:9876")
                .property("rocketmq.secret-key", SECRET).build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'rocketmq.secret-key' is set but 'rocketmq.access-key' is missing")
                .hasMessageContaining("set 'rocketmq.access-key'")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    @DisplayName("a blank secret key counts as none")
    void blankSecretKey() {
        assertThatThrownBy(() -> Switchboard.builder().broker("rocketmq")
                .property("rocketmq.namesrv-addr", "127.0.0.1:9876")
                .property("rocketmq.access-key", "orders-app").property("rocketmq.secret-key", "  ").build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'rocketmq.secret-key' is blank");
    }

    @Test
    @DisplayName("the secret key is masked in the configuration's toString, the actuator's view and the adapter's toString")
    void secretMasked() {
        Map<String, String> properties = Map.of("rocketmq.namesrv-addr", "127.0.0.1:9876",
                "rocketmq.access-key", "orders-app", "rocketmq.secret-key", SECRET, "rocketmq.tls", "true");
        BrokerConfig config = new BrokerConfig("acl", "rocketmq", properties);
        assertThat(config.toString()).contains("rocketmq.access-key=orders-app").doesNotContain(SECRET)
                .contains("rocketmq.secret-key=");
        assertThat(BrokerConfig.isSecretKey("rocketmq.secret-key")).isTrue();
        // what the Spring actuator endpoint shows for each property
        assertThat(BrokerConfig.printable("rocketmq.secret-key", SECRET)).doesNotContain(SECRET);
        try (RocketMqAdapter adapter = new RocketMqAdapter(config)) {
            assertThat(adapter.toString()).contains("access key orders-app").contains("TLS").doesNotContain(SECRET);
        }
        try (Switchboard sb = Switchboard.builder().instance("acl", "rocketmq", properties).build()) {
            assertThat(sb.instance("acl").config().toString()).doesNotContain(SECRET);
            assertThat(sb.toString()).doesNotContain(SECRET);
        }
        assertThat(AclCredentials.of("orders-app", SECRET).toString()).isEqualTo(
                "AclCredentials[accessKey=orders-app, secretKey=******]");
    }

    @Test
    @DisplayName("TLS that verifies the broker but cannot connect on Netty 4.2 is refused at start, naming the fix")
    void tlsHostNameCheckRefused() {
        boolean testMode = TlsSystemConfig.tlsTestModeEnable;
        boolean authServer = TlsSystemConfig.tlsClientAuthServer;
        String check = System.getProperty(TlsSupport.NETTY_ENDPOINT_CHECK);
        try {
            TlsSystemConfig.tlsTestModeEnable = false;
            TlsSystemConfig.tlsClientAuthServer = true;
            System.clearProperty(TlsSupport.NETTY_ENDPOINT_CHECK);
            assertThatThrownBy(() -> Switchboard.builder().broker("rocketmq")
                    .property("rocketmq.namesrv-addr", "127.0.0.1:9876").property("rocketmq.tls", "true").build())
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("property 'rocketmq.tls' is 'true' but TLS cannot connect in this JVM")
                    .hasMessageContaining("-Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE");
            System.setProperty(TlsSupport.NETTY_ENDPOINT_CHECK, "NONE");
            Switchboard.builder().broker("rocketmq").property("rocketmq.namesrv-addr", "127.0.0.1:9876")
                    .property("rocketmq.tls", "true").build().close();
        } finally {
            TlsSystemConfig.tlsTestModeEnable = testMode;
            TlsSystemConfig.tlsClientAuthServer = authServer;
            if (check == null) {
                System.clearProperty(TlsSupport.NETTY_ENDPOINT_CHECK);
            } else {
                System.setProperty(TlsSupport.NETTY_ENDPOINT_CHECK, check);
            }
        }
    }

    @Test
    @DisplayName("a broker's refusal names the access key and says to check the credentials, never the secret")
    void refusalNamesAccessKey() {
        String refusal = AclCredentials.of("orders-app", SECRET).refusal(
                new MQBrokerException(ResponseCode.NO_PERMISSION, "check signature failed."), "take the message");
        assertThat(refusal).contains("access key 'orders-app'").contains("check signature failed.")
                .contains("check the credentials").contains("rocketmq.secret-key").doesNotContain(SECRET);
        String unsigned = AclCredentials.none().refusal(
                new MQBrokerException(ResponseCode.NO_PERMISSION, "username cannot be null."), "take the message");
        assertThat(unsigned).contains("without ACL credentials").contains("set rocketmq.access-key and rocketmq.secret-key");
        assertThat(AclCredentials.of("orders-app", SECRET).refusal(
                new MQBrokerException(ResponseCode.SYSTEM_BUSY, "busy"), "take the message")).isNull();
    }
}
