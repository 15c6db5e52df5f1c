/**
 * The real RabbitMQ server on this machine as seen from tests: {@link
 * io.switchboard.testkit.rabbit.RabbitMqServer} (address, reachability check that fails with how
 * to start the server, forced connection closes) and {@link
 * io.switchboard.testkit.rabbit.RabbitScratch} (unique names, deleted afterwards).
 */
package io.switchboard.testkit.rabbit;
