package io.switchboard.testkit;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;

/**
 * One handler invocation recorded by a {@link Recorder}.
 *
 * @param message the message as the handler saw it
 * @param context the delivery context
 * @param thread the name of the handler thread
 */
public record Received<T>(Message<T> message, DeliveryContext context, String thread) {}
