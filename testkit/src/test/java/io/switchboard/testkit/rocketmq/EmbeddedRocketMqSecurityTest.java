package io.switchboard.testkit.rocketmq;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link EmbeddedRocketMq#startWithAcl} and {@link EmbeddedRocketMq#startWithTls} refuse before starting anything;
 * the brokers themselves are exercised by the RocketMQ adapter's RocketMqAclTest and RocketMqTlsTest.
 */
@DisplayName("EmbeddedRocketMq with ACL or TLS")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EmbeddedRocketMqSecurityTest {

    @Test
    @DisplayName("an ACL broker needs both keys, and says which is blank without showing the secret")
    void aclNeedsBothKeys() {
        assertThatThrownBy(() -> EmbeddedRocketMq.startWithAcl("user", " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("accessKey 'user' and secretKey is blank");
        assertThatThrownBy(() -> EmbeddedRocketMq.startWithAcl(null, "s3cret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("accessKey is blank and secretKey is set")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    @DisplayName("a TLS broker on Netty 4.2 without the host name check turned off is refused, naming the property")
    void tlsNeedsNettySetting() {
        String before = System.getProperty(TlsFiles.NETTY_ENDPOINT_CHECK);
        try {
            System.clearProperty(TlsFiles.NETTY_ENDPOINT_CHECK);
            assertThatThrownBy(EmbeddedRocketMq::startWithTls)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("-Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE");
        } finally {
            if (before != null) {
                System.setProperty(TlsFiles.NETTY_ENDPOINT_CHECK, before);
            }
        }
    }
}
