/** Replicas of one application in JVMs of their own, for the fleet control plane's tests. */
package io.switchboard.testkit.fleet;
