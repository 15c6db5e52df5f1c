package io.switchboard.rocketmq.internal;

import io.switchboard.BackPressureException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardException;
import java.util.concurrent.TimeoutException;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * Turns rocketmq-client failures into Switchboard's exceptions, so that core's publish retry
 * sees what may succeed if tried again: a busy broker is back-pressure, a time-out or a lost
 * connection carries a {@link TimeoutException}, everything else is a plain
 * {@link PublishException}.
 */
final class SendFailures {

    private SendFailures() {}

    static SwitchboardException of(Throwable error, String destination, String nameServer) {
        String where = "'" + destination + "' (name server " + nameServer + ")";
        if (isBusy(error)) {
            return new BackPressureException("RocketMQ broker is busy and refused the message to " + where + ": "
                    + error.getMessage() + "; publish slower or give the broker more resources", error);
        }
        Throwable cause = transientCause(error);
        if (cause != null) {
            TimeoutException timeout = new TimeoutException(cause.getMessage());
            timeout.initCause(error);
            return new PublishException("RocketMQ did not acknowledge the message to " + where + " in time: "
                    + cause.getMessage() + "; check that the broker is reachable", timeout);
        }
        return new PublishException("RocketMQ refused the message to " + where + ": " + error.getMessage(), error);
    }

    /** A result other than SEND_OK: the master stored it but did not flush or replicate it as configured. */
    static PublishException notDurable(SendStatus status, String destination) {
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

    private static Throwable transientCause(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RemotingTimeoutException || t instanceof RemotingConnectException
                    || t instanceof RemotingTooMuchRequestException) {
                return t;
            }
        }
        return null;
    }
}
