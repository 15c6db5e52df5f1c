/** The starter's implementation; not an API, may change in any release. */
package io.switchboard.spring.internal;
