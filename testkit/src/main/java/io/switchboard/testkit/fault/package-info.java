/** Fault injection for tests against real brokers. */
package io.switchboard.testkit.fault;
