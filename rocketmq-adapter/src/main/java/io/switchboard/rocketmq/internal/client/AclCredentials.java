package io.switchboard.rocketmq.internal.client;

import java.util.regex.Pattern;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * The ACL access key and secret key every RocketMQ client of the adapter signs its requests with
 * ({@code rocketmq.access-key}, {@code rocketmq.secret-key}), or none. The secret key never leaves
 * this class except into RocketMQ's request signer: {@link #toString()} masks it, and the errors
 * built here name the access key only.
 */
public final class AclCredentials {

    /** Property holding the ACL access key (the user name of a RocketMQ 5 ACL 2.0 user). */
    public static final String ACCESS_KEY = "rocketmq.access-key";
    /** Property holding the ACL secret key (the user's password); masked wherever configuration is shown. */
    public static final String SECRET_KEY = "rocketmq.secret-key";

    private static final AclCredentials NONE = new AclCredentials(null, null);
    /** RocketMQ 5's authentication failures (rocketmq-auth's {@code DefaultAuthenticationHandler} and context builder). */
    private static final Pattern AUTHENTICATION_FAILURES = Pattern.compile("(?i)check signature failed|User:.* is not found"
            + "|User:.* is disabled|username cannot be null|Authentication failed|authentication (header|credential|keyValues)");

    private final String accessKey;
    private final String secretKey;

    private AclCredentials(String accessKey, String secretKey) {
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /** {@return no credentials: requests go unsigned, for brokers without ACL} */
    public static AclCredentials none() {
        return NONE;
    }

    /**
     * {@return credentials for signing requests}
     *
     * @param accessKey not blank
     * @param secretKey not blank
     */
    public static AclCredentials of(String accessKey, String secretKey) {
        return new AclCredentials(accessKey, secretKey);
    }

    /** {@return true when requests are signed} */
    public boolean enabled() {
        return accessKey != null;
    }

    /** {@return the access key, or null without credentials} */
    public String accessKey() {
        return accessKey;
    }

    /**
     * {@return a new request signer for one RocketMQ client (producer, consumer), or null without credentials,
     * which rocketmq-client takes as "no hook"}
     */
    public RPCHook rpcHook() {
        return enabled() ? new AclClientRPCHook(new SessionCredentials(accessKey, secretKey)) : null;
    }

    /**
     * Explains a broker's {@code NO_PERMISSION} answer (wrong or unknown credentials, a user without
     * the permission, or a broker that wants credentials the adapter was not given).
     *
     * @param error what a request failed with
     * @param what what the adapter was doing, for example {@code "send to 'orders'"}
     * @return the explanation, naming the access key (never the secret key) and what to check, or null
     *     when the failure is not a refused permission
     */
    public String refusal(Throwable error, String what) {
        String remark = noPermissionRemark(error);
        if (remark == null) {
            return null;
        }
        if (!enabled()) {
            return "The RocketMQ broker refused to " + what + " without ACL credentials (" + remark + "): if the broker "
                    + "has ACL on, set " + ACCESS_KEY + " and " + SECRET_KEY + " to a user of the broker; otherwise "
                    + "check the topic's and the broker's permissions";
        }
        return "The RocketMQ broker refused to " + what + " for access key '" + accessKey + "' (" + remark
                + "); check the credentials: " + ACCESS_KEY + " must name a user of the broker and " + SECRET_KEY
                + " must be that user's secret key; then check that the user may use the topic and group, and the "
                + "topic's and the broker's permissions";
    }

    /**
     * {@return true when {@code error} is the broker refusing the credentials themselves (unknown or disabled user,
     * wrong secret key, unsigned request), not an ACL rule or a topic's permissions: no request of the adapter can
     * succeed then}
     */
    public static boolean isAuthenticationRefusal(Throwable error) {
        String remark = noPermissionRemark(error);
        return remark != null && AUTHENTICATION_FAILURES.matcher(remark).find();
    }

    /** The broker's remark of a {@code NO_PERMISSION} answer in {@code error}'s causes, or null if there is none. */
    static String noPermissionRemark(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof MQBrokerException broker && broker.getResponseCode() == ResponseCode.NO_PERMISSION) {
                return remark(broker.getErrorMessage());
            }
            if (t instanceof MQClientException client && client.getResponseCode() == ResponseCode.NO_PERMISSION) {
                return remark(client.getErrorMessage());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static String remark(String remark) {
        return remark == null || remark.isBlank() ? "no permission" : remark.trim();
    }

    @Override
    public String toString() {
        return enabled() ? "AclCredentials[accessKey=" + accessKey + ", secretKey=******]" : "AclCredentials[none]";
    }
}
