package io.switchboard.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.PublishException;

/** Turns amqp-client failures into the broker's own words plus what to do about them. */
public final class AmqpErrors {

    private static final int ACCESS_REFUSED = 403;
    public static final int NOT_FOUND = 404;
    private static final int NOT_ALLOWED = 530;
    public static final int PRECONDITION_FAILED = 406;
    public static final int RESOURCE_LOCKED = 405;

    private AmqpErrors() {}

    /** The broker's reply text when there is one, else the exception's message. */
    public static String describe(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s) {
                Object reason = s.getReason();
                if (reason instanceof AMQP.Channel.Close close) {
                    return close.getReplyText();
                }
                if (reason instanceof AMQP.Connection.Close close) {
                    return close.getReplyText();
                }
            }
        }
        return String.valueOf(error.getMessage() != null ? error.getMessage() : error);
    }

    /** A nack where the queues may be full with reject-publish: the record fails at once. */
    public static PublishException nackedFull(String destination) {
        return new PublishException("RabbitMQ refused (nacked) a record for '" + destination + "': a queue bound to it "
                + "is full with x-overflow=reject-publish, or the broker had an internal error; publish it again later or "
                + "raise rabbitmq.max-length");
    }

    /** A record nacked again and again, on new channels too, for the publish timeout. */
    public static PublishException nackedTooLong(String destination, long millis) {
        return new PublishException("RabbitMQ refused (nacked) a record for '" + destination + "' and kept refusing it "
                + "for " + millis + " ms (rabbitmq.publish-timeout), on new channels too: a queue bound to it had no "
                + "reachable leader (a node of the cluster down, or an election) or the broker had an internal error; "
                + "publish it again later, or raise rabbitmq.publish-timeout to wait longer");
    }

    /** The text ending with exactly one full stop, to be followed by another sentence. */
    public static String sentence(String text) {
        String trimmed = text.strip();
        return trimmed.endsWith(".") ? trimmed : trimmed + ".";
    }

    /**
     * True when the broker closed the connection while opening it with NOT_ALLOWED (530): the
     * virtual host does not exist or the user has no permissions on it.
     */
    /**
     * True when {@code error} is the loss of the connection itself (the node died, was cut off or
     * closed it), not a refusal: worth trying again once amqp-client has recovered the connection.
     */
    static boolean isConnectionLost(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException signal) {
                return signal.isHardError() && !signal.isInitiatedByApplication()
                        && replyCode(signal) != NOT_ALLOWED && replyCode(signal) != ACCESS_REFUSED;
            }
            if (t instanceof java.net.SocketException || t instanceof java.io.EOFException) {
                return true;
            }
        }
        return false;
    }

    public static boolean isConnectionNotAllowed(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Connection.Close close) {
                return close.getReplyCode() == NOT_ALLOWED;
            }
        }
        return false;
    }

    /** A sentence that says how to fix the failure, starting with ". ", or empty. */
    public static String hint(Throwable error) {
        return switch (replyCode(error)) {
            case NOT_FOUND -> ". Create the destination first (switchboard.auto-provision=true, or Provisioner.ensureDestination)";
            case PRECONDITION_FAILED -> ". A RabbitMQ queue keeps the arguments it was created with: delete it (for example "
                    + "rabbitmqctl delete_queue <name>) or configure the same rabbitmq.queue-type, rabbitmq.lazy, "
                    + "rabbitmq.max-length, rabbitmq.overflow, rabbitmq.delivery-limit and rabbitmq.single-active-consumer";
            case RESOURCE_LOCKED -> ". The queue is exclusive to another connection";
            case ACCESS_REFUSED -> ". The user of rabbitmq.uri lacks a permission on this virtual host: grant configure, write "
                    + "and read (rabbitmqctl set_permissions -p <vhost> <user> '.*' '.*' '.*')";
            default -> "";
        };
    }

    /** The reply code of the broker's channel close behind the failure, or 0. */
    public static int replyCode(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Channel.Close close) {
                return close.getReplyCode();
            }
        }
        return 0;
    }
}
