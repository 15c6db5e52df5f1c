package io.switchboard.rocketmq.internal.publish;

import io.switchboard.BackPressureException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.internal.client.AclCredentials;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * Turns rocketmq-client failures into Switchboard's exceptions, so that core's publish retry
 * sees what may succeed if tried again: a busy broker is back-pressure, a time-out or a lost
 * connection carries a {@link TimeoutException}, everything else is a plain
 * {@link PublishException}.
 *
 * <p>rocketmq-client words connection failures after its own internals ({@code connect to
 * 127.0.0.1:10911 failed}, {@code send request to </127.0.0.1:10911> failed}, {@code wait response
 * on the channel </127.0.0.1:10911> timeout, 3000(ms)}), and a connection that closes while a send
 * waits for its answer fails it as {@code MQClientException: unknown reason} caused by a plain
 * {@link RemotingException} whose message is the request's dump (headers and properties included).
 * The messages here name the broker address plainly where the client gave it, say which of these
 * happened and what to check, and never repeat the request's dump.
 */
public final class SendFailures {

    /** The broker address in rocketmq-client's remoting messages, with or without {@code <>} and a leading {@code /}. */
    private static final Pattern ADDRESS =
            Pattern.compile("(?:connect to|send request to|on the channel) <?/?([^\\s<>]*)>? (?:failed|timeout)");
    private static final Pattern WAITED = Pattern.compile("timeout, (\\d+)\\(ms\\)");

    private SendFailures() {}

    /**
     * @param credentials the adapter's ACL credentials: a refused permission is explained with its access key
     */
    public static SwitchboardException of(Throwable error, String destination, String nameServer,
            AclCredentials credentials) {
        String where = "'" + destination + "' (name server " + nameServer + ")";
        String refused = credentials.refusal(error, "take the message to " + where);
        if (refused != null) {
            return new PublishException(refused, error);
        }
        if (isBusy(error)) {
            return new BackPressureException("RocketMQ broker is busy and refused the message to " + where + ": "
                    + error.getMessage() + "; publish slower or give the broker more resources", error);
        }
        Throwable cause = transientCause(error);
        if (cause != null) {
            TimeoutException timeout = new TimeoutException(isConnectionClosed(cause)
                    ? "connection to the broker closed with the send in flight" : cause.getMessage());
            timeout.initCause(error);
            return new PublishException(transientMessage(cause, where), timeout);
        }
        return new PublishException("RocketMQ refused the message to " + where + ": " + error.getMessage(), error);
    }

    /** A result other than SEND_OK: the master stored it but did not flush or replicate it as configured. */
    public static PublishException notDurable(SendStatus status, String destination) {
        return new PublishException("RocketMQ stored the message to '" + destination + "' on the master but reported "
                + status + " (not flushed or not replicated as the broker is configured); it may still be delivered, "
                + "so a retry may duplicate it");
    }

    private static boolean isBusy(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof MQBrokerException broker && broker.getResponseCode() == ResponseCode.SYSTEM_BUSY) {
                return true;
            }
            if (t instanceof MQClientException client && client.getResponseCode() == ResponseCode.SYSTEM_BUSY) {
                return true;
            }
        }
        return false;
    }

    private static String transientMessage(Throwable cause, String where) {
        String broker = brokerAddress(cause.getMessage());
        String at = broker == null ? "the broker" : "broker " + broker;
        String check = broker == null
                ? "check that the name server routes the topic to a running broker (mqadmin topicRoute)"
                : "check that the broker is up and that " + broker + " (the address it registered with the name "
                        + "server: brokerIP1 and listenPort) is reachable from this host";
        if (cause instanceof RemotingConnectException) {
            return "RocketMQ could not send the message to " + where + ": the connection to " + at + " failed; "
                    + check;
        }
        if (cause instanceof RemotingSendRequestException) {
            return "RocketMQ could not send the message to " + where + ": the connection to " + at
                    + " broke while sending; " + check + ". The message was not acknowledged and may be sent again";
        }
        if (isConnectionClosed(cause)) {
            return "RocketMQ could not send the message to " + where + ": the connection to the broker closed before "
                    + "it answered; check that the broker is up and that the address the name server gives for it "
                    + "(brokerIP1 and listenPort, as `mqadmin clusterList` shows) is reachable from this host. It may "
                    + "still have stored the message, so a retry may duplicate it";
        }
        if (cause instanceof RemotingTimeoutException) {
            Matcher waited = WAITED.matcher(String.valueOf(cause.getMessage()));
            return "RocketMQ did not acknowledge the message to " + where + " in time: no answer from " + at
                    + (waited.find() ? " within " + waited.group(1) + " ms" : "") + "; " + check
                    + ", or raise rocketmq.send-timeout if the broker is slow. It may still have stored the message,"
                    + " so a retry may duplicate it";
        }
        return "RocketMQ's client did not send the message to " + where + ": " + cause.getMessage()
                + " (too many requests in flight to " + at + "); publish slower or lower rocketmq.max-pending-sends";
    }

    /** rocketmq-client's failure of a send whose connection closed before the answer: a plain RemotingException. */
    private static boolean isConnectionClosed(Throwable t) {
        return t.getClass() == RemotingException.class;
    }

    /** The broker address named in a rocketmq-client remoting message, or null if it names none. */
    static String brokerAddress(String message) {
        if (message == null) {
            return null;
        }
        Matcher matcher = ADDRESS.matcher(message);
        if (!matcher.find()) {
            return null;
        }
        String address = matcher.group(1);
        return address.isEmpty() || address.equals("null") ? null : address;
    }

    /**
     * {@return the failure's remoting cause that a new attempt may not meet (a refused, reset or timed-out
     * connection, a full request queue), or null when another attempt would fail alike}
     *
     * @param error what a send failed with
     */
    static Throwable transientCause(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RemotingTimeoutException || t instanceof RemotingConnectException
                    || t instanceof RemotingSendRequestException || t instanceof RemotingTooMuchRequestException
                    || isConnectionClosed(t)) {
                return t;
            }
        }
        return null;
    }
}
