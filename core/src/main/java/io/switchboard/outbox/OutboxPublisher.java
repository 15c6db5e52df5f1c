package io.switchboard.outbox;

import io.switchboard.Codec;
import io.switchboard.Message;
import java.sql.Connection;
import java.util.List;

/**
 * Writes typed messages for one destination to the outbox, in the caller's transaction (see
 * {@link Outbox#publish(Connection, String, Message)}); made by {@link Outbox#publisher(String, Codec)}. Thread-safe.
 *
 * @param <T> the payload type
 */
public final class OutboxPublisher<T> {

    private final Outbox outbox;
    private final String destination;
    private final Codec<T> codec;
    private final String contentType;

    OutboxPublisher(Outbox outbox, String destination, Codec<T> codec) {
        this.outbox = outbox;
        this.destination = destination;
        this.codec = codec;
        this.contentType = codec.contentType();
    }

    /**
     * Writes a message with this payload and no key.
     *
     * @param connection the connection of the application's transaction (auto-commit off)
     * @param payload the payload
     * @return the message's id
     */
    public String publish(Connection connection, T payload) {
        return publish(connection, Message.of(payload));
    }

    /**
     * Writes a message; sent once the transaction commits.
     *
     * @param connection the connection of the application's transaction (auto-commit off)
     * @param message the message; an id is given to it here when it has none
     * @return the message's id
     * @throws OutboxException when the connection is in auto-commit mode or closed, on another database, or the row
     *     could not be written (roll back then)
     * @throws io.switchboard.MessageTooLargeException when the message is larger than a broker instance accepts
     */
    public String publish(Connection connection, Message<T> message) {
        return outbox.insert(connection, destination, contentType, List.of(message), codec).get(0);
    }

    /**
     * Writes several messages in one batch of statements; sent once the transaction commits, in this order per key.
     *
     * @param connection the connection of the application's transaction (auto-commit off)
     * @param messages the messages
     * @return their ids, in order
     * @throws OutboxException as {@link #publish(Connection, Message)}; nothing is written when a message is refused
     *     before the batch is sent, and the transaction must be rolled back when the batch fails
     */
    public List<String> publishAll(Connection connection, List<Message<T>> messages) {
        return outbox.insert(connection, destination, contentType, messages, codec);
    }

    /** {@return the destination} */
    public String destination() {
        return destination;
    }
}
