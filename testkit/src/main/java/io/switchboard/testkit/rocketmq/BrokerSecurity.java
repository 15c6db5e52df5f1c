package io.switchboard.testkit.rocketmq;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider;
import org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider;
import org.apache.rocketmq.auth.config.AuthConfig;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;

/**
 * What an embedded broker asks of its clients: ACL 2.0 credentials (RocketMQ 5's authentication
 * and authorization, one super user) and TLS, each optional. {@code accessKey} and
 * {@code secretKey} are both null without ACL; {@code tls} is null without TLS.
 *
 * <p>ACL lives in the broker only: RocketMQ 5.5.0's name server checks no credentials, so route
 * lookups and broker registration work unsigned, and every request to the broker must be signed.
 */
record BrokerSecurity(String accessKey, String secretKey, TlsFiles tls) {

    /**
     * RocketMQ's auth factories keep one provider (and its RocksDB) per {@link AuthConfig#getConfigName()} for the
     * life of the JVM, so every broker start gets a name of its own: a restarted or second ACL broker must not
     * find the closed store of an earlier one.
     */
    private static final AtomicLong AUTH_CONFIG_NAMES = new AtomicLong();

    static final BrokerSecurity NONE = new BrokerSecurity(null, null, null);

    boolean acl() {
        return accessKey != null;
    }

    /** {@return the broker's authentication and authorization settings, with its store under {@code dir}, or null without ACL} */
    AuthConfig authConfig(Path dir, String cluster, String brokerName) {
        if (!acl()) {
            return null;
        }
        AuthConfig config = new AuthConfig();
        config.setConfigName(brokerName + "-acl-" + AUTH_CONFIG_NAMES.incrementAndGet());
        config.setClusterName(cluster);
        config.setAuthConfigPath(dir.resolve("store").resolve("config").toString());
        config.setAuthenticationEnabled(true);
        config.setAuthenticationMetadataProvider(LocalAuthenticationMetadataProvider.class.getName());
        config.setAuthorizationEnabled(true);
        config.setAuthorizationMetadataProvider(LocalAuthorizationMetadataProvider.class.getName());
        // the first user, made a super user (every permission) when the broker starts
        config.setInitAuthenticationUser("{\"username\":" + json(accessKey) + ",\"password\":" + json(secretKey) + "}");
        // what the broker signs its own requests with (to the name server and other brokers)
        config.setInnerClientAuthenticationCredentials(
                "{\"accessKey\":" + json(accessKey) + ",\"secretKey\":" + json(secretKey) + "}");
        return config;
    }

    /** {@return a request signer for one client, or null without ACL} */
    RPCHook rpcHook() {
        return acl() ? new AclClientRPCHook(new SessionCredentials(accessKey, secretKey)) : null;
    }

    /** Connects a producer, consumer or admin client of the testkit over TLS when the broker wants it. */
    void configure(ClientConfig client) {
        client.setUseTLS(tls != null);
    }

    /** {@return the broker's own client settings (registration with the name server): over TLS when the broker is} */
    NettyClientConfig brokerClientConfig() {
        NettyClientConfig config = new NettyClientConfig();
        config.setUseTLS(tls != null);
        return config;
    }

    private static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    @Override
    public String toString() {
        return "BrokerSecurity[" + (acl() ? "ACL user " + accessKey + " (secret key ******)" : "no ACL")
                + (tls != null ? ", TLS" : ", no TLS") + "]";
    }
}
