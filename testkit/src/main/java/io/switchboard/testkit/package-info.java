/**
 * Test support: the {@link io.switchboard.testkit.BrokerContract} suite every adapter passes, and
 * real brokers to run it on.
 */
package io.switchboard.testkit;
