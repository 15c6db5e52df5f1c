/**
 * The message envelope: the CloudEvents headers core writes on publish (held as numbers until
 * read), the envelope format, message ids and times, and the message a handler receives.
 * Implementation of core: not part of the public API and may change without notice.
 */
package io.switchboard.internal.envelope;
