package io.switchboard.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;

/** Turns amqp-client failures into the broker's own words plus what to do about them. */
final class AmqpErrors {

    private static final int NOT_FOUND = 404;
    private static final int PRECONDITION_FAILED = 406;
    private static final int RESOURCE_LOCKED = 405;

    private AmqpErrors() {}

    /** The broker's reply text when there is one, else the exception's message. */
    static String describe(Throwable error) {
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

    /** A sentence that says how to fix the failure, starting with ". ", or empty. */
    static String hint(Throwable error) {
        return switch (replyCode(error)) {
            case NOT_FOUND -> ". Create the destination first (switchboard.auto-provision=true, or Provisioner.ensureDestination)";
            case PRECONDITION_FAILED -> ". A RabbitMQ queue keeps the arguments it was created with: delete it (for example "
                    + "rabbitmqctl delete_queue <name>) or configure the same rabbitmq.queue-type, rabbitmq.lazy, "
                    + "rabbitmq.max-length, rabbitmq.overflow, rabbitmq.delivery-limit and rabbitmq.single-active-consumer";
            case RESOURCE_LOCKED -> ". The queue is exclusive to another connection";
            default -> "";
        };
    }

    private static int replyCode(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Channel.Close close) {
                return close.getReplyCode();
            }
        }
        return 0;
    }
}
