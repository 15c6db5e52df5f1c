/**
 * The real RabbitMQ server on this machine as seen from tests: {@link
 * io.switchboard.testkit.rabbit.RabbitMqServer} (address, reachability check that fails with how
 * to start the server, forced connection closes) and {@link
 * io.switchboard.testkit.rabbit.RabbitScratch} (unique names, deleted afterwards); {@link
 * io.switchboard.testkit.rabbit.RabbitCluster}, a cluster of extra nodes of the same installation
 * (own names, ports, data and cookie, each node in a network namespace of its own) with kill, network
 * cut, freeze and restart of a node, for fault tests.
 */
package io.switchboard.testkit.rabbit;
