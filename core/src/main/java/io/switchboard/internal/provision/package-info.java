/**
 * Provisioning of an instance's destinations in batched rounds off the application's thread. Implementation of core:
 * not part of the public API and may change without notice.
 */
package io.switchboard.internal.provision;
