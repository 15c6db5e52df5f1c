/**
 * The fleet's control log (a stream queue) and leadership (an exclusive queue).
 * Implementation of the RabbitMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rabbit.internal.control;
