/**
 * The broker comparison: the windowed traffic book and statistics per instance, the fleet's
 * traffic figures, and the engine that judges them. Implementation of core: not part of the
 * public API and may change without notice.
 */
package io.switchboard.internal.comparison;
