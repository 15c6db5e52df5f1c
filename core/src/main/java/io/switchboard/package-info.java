/**
 * Switchboard's user API: {@link io.switchboard.Switchboard} (entry point), {@link io.switchboard.Publisher},
 * {@link io.switchboard.Subscription}, {@link io.switchboard.Message}, {@link io.switchboard.Delivery},
 * {@link io.switchboard.MessageHandler} and {@link io.switchboard.Codec}. One async type everywhere:
 * {@link java.util.concurrent.CompletionStage}.
 */
package io.switchboard;
