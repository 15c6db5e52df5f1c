/**
 * Publishing: the raw publisher, its confirm channels and the pending confirms.
 * Implementation of the RabbitMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rabbit.internal.publish;
