/** The contract every adapter's {@link io.switchboard.spi.ControlSupport} must keep, on its real broker. */
package io.switchboard.testkit.control;
