/** Measurement: the open-loop rate limiter, per-thread HdrHistogram recorders, the clock. */
package io.switchboard.bench.measure;
