/**
 * Actuator support: a health indicator per broker instance and the {@code switchboard} endpoint
 * (instances, routes, the live broker comparison, and changing routes at run time).
 */
package io.switchboard.spring.actuate;
