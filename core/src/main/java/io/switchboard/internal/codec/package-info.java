/**
 * The built-in codecs behind {@code Codec}'s factory methods. Implementation of core: not part of
 * the public API and may change without notice.
 */
package io.switchboard.internal.codec;
