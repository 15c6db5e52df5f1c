package io.switchboard.bench.run;

/**
 * One second (or so) of a run, for throughput over time.
 *
 * @param seconds the end of the interval, in seconds since measuring began (negative during warm-up)
 * @param publishRate acknowledged sends per second in the interval
 * @param consumeRate received messages per second in the interval
 * @param p99Millis end-to-end 99th percentile of the messages received in the interval
 */
public record Sample(double seconds, double publishRate, double consumeRate, double p99Millis) {}
