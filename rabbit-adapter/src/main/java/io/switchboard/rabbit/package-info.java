/**
 * The RabbitMQ adapter (id {@code rabbitmq}): {@link io.switchboard.rabbit.RabbitAdapterFactory}
 * is found through {@link java.util.ServiceLoader}; everything else is in the {@code internal}
 * package.
 */
package io.switchboard.rabbit;
